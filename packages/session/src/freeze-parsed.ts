/**
 * Freezes a freshly parsed JSON value in place: every object and array in it. Unlike dsh-core's
 * `deepFreeze`, it records nothing in the shared registry of deeply frozen objects. Restoring a log puts
 * millions of objects in memory at once; registering each of them grew one WeakSet to tens of millions of
 * entries, which V8 rehashes and sweeps at a cost that rises faster than the log (minutes for a few
 * hundred MB). Whoever later deep-freezes something built from these events walks only what it touches.
 */
export function freezeParsed<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  const stack: object[] = [value]
  while (stack.length) {
    const node = stack.pop()!
    // A frozen node was reached before: parsed values share no nodes, so this only stops a cycle.
    if (Object.isFrozen(node)) continue
    Object.freeze(node)
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) {
        const item: unknown = node[index]
        if (item !== null && typeof item === 'object') stack.push(item)
      }
    } else {
      for (const key in node) {
        const member: unknown = (node as Record<string, unknown>)[key]
        if (member !== null && typeof member === 'object') stack.push(member)
      }
    }
  }
  return value
}
