/**
 * Every object that `deepFreeze` has finished with. Session events and request options share this
 * registry (dsh-session freezes with this function too), so dispatching a request whose history and
 * tools came frozen from the log walks only what is new, not the whole conversation again.
 */
const deeplyFrozen = new WeakSet<object>()

/**
 * Freezes `value` and everything reachable from it, in place, and returns the same reference.
 * AbortSignals are left alone (a frozen signal cannot be aborted-and-observed normally), and so are
 * functions (behaviour, not data) and typed arrays (which cannot be frozen). Getters on objects are not
 * invoked; the items of a plain array are read by index.
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
      if (Array.isArray(node) && Object.getPrototypeOf(node) === Array.prototype) {
        // Plain arrays hold their items as data properties; reading them by index skips a descriptor each.
        for (let index = 0; index < node.length; index++) stack.push(node[index])
        continue
      }
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

/**
 * A frozen array of `previous`'s items followed by `added`'s, deep-frozen by construction: `previous` is
 * known deep-frozen, so only `added` is walked, and the result is registered without visiting the rest.
 */
export function frozenConcat<T>(previous: readonly T[], added: readonly T[]): readonly T[] {
  for (const item of added) deepFreeze(item)
  const list = Object.freeze(previous.concat(added as T[]))
  if (deeplyFrozen.has(previous)) deeplyFrozen.add(list)
  else deepFreeze(list)
  return list
}

/** Records `value` as deep-frozen; for values of this package that are frozen by construction. */
export function registerDeepFrozen<T extends object>(value: T): T {
  deeplyFrozen.add(value)
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

/**
 * A deep-frozen copy of a JSON-safe value, equal to what `JSON.parse(JSON.stringify(value))` returns:
 * undefined properties are dropped and -0 becomes 0. The caller guarantees the value is JSON-safe
 * (finite numbers, plain objects and arrays, no undefined array items); each node is copied and frozen in
 * one pass, without building the text. Only the copy itself is registered as deep-frozen: a session
 * registers one object per event instead of every node (a `deepFreeze` that reaches an inner node on its
 * own walks it once), since the cost of the registry, and of the collector's work on it, grows with its size.
 */
export function frozenJsonCopy<T>(value: T): T {
  const copy = jsonCopy(value)
  if (copy !== null && typeof copy === 'object') deeplyFrozen.add(copy)
  return copy
}

function jsonCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return (Object.is(value, -0) ? 0 : value) as T
  let copy: unknown[] | Record<string, unknown>
  if (Array.isArray(value)) {
    copy = new Array(value.length)
    for (let index = 0; index < value.length; index++) copy[index] = jsonCopy(value[index])
  } else {
    copy = {}
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue
      const item = (value as Record<string, unknown>)[key]
      if (item === undefined) continue
      // Assigning "__proto__" would set the copy's prototype; JSON.parse makes it an own data property.
      if (key === '__proto__') Object.defineProperty(copy, key, { value: jsonCopy(item), enumerable: true, writable: true, configurable: true })
      else copy[key] = jsonCopy(item)
    }
  }
  return Object.freeze(copy) as T
}
