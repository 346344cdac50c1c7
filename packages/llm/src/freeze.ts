/**
 * Every object that `deepFreeze` has finished with. Session events and request options share this
 * registry (dsh-session freezes with this function too), so dispatching a request whose history and
 * tools came frozen from the log walks only what is new, not the whole conversation again.
 */
const deeplyFrozen = new WeakSet<object>()

/**
 * Freezes `value` and everything reachable from it, in place, and returns the same reference.
 * AbortSignals are left alone (a frozen signal cannot be aborted-and-observed normally), and so are
 * functions (behaviour, not data) and typed arrays (which cannot be frozen). Getters are not invoked.
 */
export function deepFreeze<T>(value: T): T {
  if (!isFreezable(value) || deeplyFrozen.has(value)) return value
  const visited: object[] = []
  const seen = new WeakSet<object>()
  const stack: unknown[] = [value]
  while (stack.length) {
    const node = stack.pop()
    if (!isFreezable(node) || seen.has(node) || deeplyFrozen.has(node)) continue
    seen.add(node)
    visited.push(node)
    Object.freeze(node)
    for (const key of Reflect.ownKeys(node)) {
      const descriptor = Object.getOwnPropertyDescriptor(node, key)
      if (descriptor && 'value' in descriptor) stack.push(descriptor.value)
    }
  }
  for (const node of visited) deeplyFrozen.add(node)
  return value
}

/** True when `value` went through `deepFreeze` (or is a primitive). */
export function isDeepFrozen(value: unknown): boolean {
  return !isFreezable(value) || deeplyFrozen.has(value)
}

function isFreezable(node: unknown): node is object {
  if (node === null || typeof node !== 'object') return false
  if (typeof AbortSignal !== 'undefined' && node instanceof AbortSignal) return false
  return !ArrayBuffer.isView(node)
}
