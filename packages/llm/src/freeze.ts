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
  // Nodes are registered as they are reached (which also stops cycles); the walk is synchronous, so no
  // one can observe a registered node whose children are not frozen yet, unless the walk throws.
  const visited: object[] = []
  const stack: unknown[] = [value]
  try {
    while (stack.length) {
      const node = stack.pop()
      if (!isFreezable(node) || deeplyFrozen.has(node)) continue
      deeplyFrozen.add(node)
      visited.push(node)
      Object.freeze(node)
      for (const key of Reflect.ownKeys(node)) {
        const descriptor = Object.getOwnPropertyDescriptor(node, key)
        if (descriptor && 'value' in descriptor) stack.push(descriptor.value)
      }
    }
  } catch (error) {
    for (const node of visited) deeplyFrozen.delete(node)
    throw error
  }
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

