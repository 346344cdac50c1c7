/**
 * Freezes `value` and everything reachable from it, in place, and returns the same reference.
 * AbortSignals are left alone (a frozen signal cannot be aborted-and-observed normally), and so are
 * functions (behaviour, not data) and typed arrays (which cannot be frozen). Getters are not invoked.
 */
export function deepFreeze<T>(value: T): T {
  const seen = new WeakSet<object>()
  const stack: unknown[] = [value]
  while (stack.length) {
    const node = stack.pop()
    if (!isFreezable(node) || seen.has(node)) continue
    seen.add(node)
    Object.freeze(node)
    for (const key of Reflect.ownKeys(node)) {
      const descriptor = Object.getOwnPropertyDescriptor(node, key)
      if (descriptor && 'value' in descriptor) stack.push(descriptor.value)
    }
  }
  return value
}

function isFreezable(node: unknown): node is object {
  if (node === null || typeof node !== 'object') return false
  if (typeof AbortSignal !== 'undefined' && node instanceof AbortSignal) return false
  return !ArrayBuffer.isView(node)
}
