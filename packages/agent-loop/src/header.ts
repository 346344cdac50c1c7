import type { RequestHeader } from 'dsh-session'

/** Two headers are the same when their bytes are: model, rendered system prompt, tools in order, deferred names. */
export function sameHeader(a: RequestHeader | undefined, b: RequestHeader): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b)
}

/**
 * Remembers the last header compared, so the common step — same model, same prompt text, the same
 * frozen tool snapshots from the assembly — is recognised by identity instead of serializing every
 * tool schema twice per step.
 */
export class HeaderMemo {
  private last: { logged: RequestHeader; assembled: RequestHeader } | undefined

  /** True when `next` has the bytes of `logged` (the last header in the session log). */
  same(logged: RequestHeader | undefined, next: RequestHeader): boolean {
    if (!logged) return false
    const last = this.last
    if (last && last.logged === logged && last.assembled.model === next.model && last.assembled.system === next.system
      && sameItems(last.assembled.tools, next.tools) && sameItems(last.assembled.deferredTools ?? [], next.deferredTools ?? [])) {
      return true
    }
    const same = sameHeader(logged, next)
    this.last = same ? { logged, assembled: next } : undefined
    return same
  }

  /** Records that `assembled` was just logged as `logged`. */
  remember(logged: RequestHeader, assembled: RequestHeader): void {
    this.last = { logged, assembled }
  }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index])
}

/** Tool names that appear in `next` but not `previous`, and the reverse, each in `next`/`previous` order. */
export function diffToolNames(previous: RequestHeader, next: RequestHeader): { added: string[]; removed: string[] } {
  const before = new Set(previous.tools.map((tool) => tool.name))
  const after = new Set(next.tools.map((tool) => tool.name))
  return {
    added: next.tools.map((tool) => tool.name).filter((name) => !before.has(name)),
    removed: previous.tools.map((tool) => tool.name).filter((name) => !after.has(name)),
  }
}
