import type { RequestHeader } from 'dsh-session'

/** Two headers are the same when their bytes are: model, rendered system prompt and tools in order. */
export function sameHeader(a: RequestHeader | undefined, b: RequestHeader): boolean {
  return a !== undefined && JSON.stringify(a) === JSON.stringify(b)
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
