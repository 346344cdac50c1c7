import type { EventData, RequestHeader, Session } from 'dsh-session'
import type { Turn } from './turn.ts'

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

/**
 * The request headers of one agent's session: logs a step's assembled header when its bytes differ from
 * the last logged one (reason `initial`, `resume` for the first of a resumed session in this process, else
 * `change`), and after it a tool-registry developer message when tool names were added or removed.
 */
export class HeaderLog {
  private readonly memo = new HeaderMemo()
  private loggedThisProcess = 0
  /** Set by `modelSwitched()` until the next header is logged, whose reason it then is. */
  private switched = false

  constructor(private readonly session: Session) {}

  /**
   * The agent's model was switched to `model`: the next header logged gives reason `model`, unless it is the
   * model of the last logged header again (that header still holds, and nothing needs explaining).
   */
  modelSwitched(model: string): void {
    this.switched = this.session.requestHeader()?.data.header.model !== model
  }

  /** True when `next` has the bytes of `logged` (the last header in the session log). */
  same(logged: RequestHeader | undefined, next: RequestHeader): boolean {
    return this.memo.same(logged, next)
  }

  /** Logs `header` for the turn's current step unless the log already ends with its bytes. */
  log(turn: Turn, header: RequestHeader): void {
    const { session } = this
    const previous = session.requestHeader()?.data.header
    if (this.memo.same(previous, header)) return
    const reason: EventData<'request/header'>['reason'] = !previous ? 'initial' : this.switched ? 'model'
      : session.resumed && this.loggedThisProcess === 0 ? 'resume' : 'change'
    const logged = session.append('request/header', { turn: turn.turn, step: turn.step, reason, header })
    this.switched = false
    this.loggedThisProcess++
    this.memo.remember(logged.data.header, header)
    if (!previous) return
    const { added, removed } = diffToolNames(previous, header)
    if (added.length === 0 && removed.length === 0) return
    session.append('developer/message', { turn: turn.turn, step: turn.step, source: 'tool-registry', added, removed, headerSeq: logged.seq })
    turn.notify({ type: 'tools-changed', turn: turn.turn, step: turn.step, added, removed })
  }
}
