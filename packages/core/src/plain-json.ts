import { isDeepFrozen, registerDeepFrozen } from './freeze.ts'

const hasOwn = Object.prototype.hasOwnProperty

const isPlainObject = (value: object) => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Throws unless `value` is plain JSON (finite numbers, strings, booleans, null, plain objects and arrays, no
 * cycles; undefined object members are allowed and dropped), naming the first bad node by its path from
 * `root`. Checks only.
 */
export function checkPlainJson(value: unknown, root: string): void {
  walk(value, root, [], [], false)
}

/**
 * `checkPlainJson` and `frozenJsonCopy` in one pass: the check, then a deep-frozen copy equal to
 * `JSON.parse(JSON.stringify(value))`, each node copied and frozen as it is checked. Only the copy's root is
 * registered as deeply frozen, as with `frozenJsonCopy`. A value someone deep-froze already (a shared constant)
 * cannot change: it is checked and returned as its own copy.
 */
export function frozenPlainJsonCopy<T>(value: T, root: string): T {
  if (isDeepFrozen(value)) {
    checkPlainJson(value, root)
    return value
  }
  const copy = walk(value, root, [], [], true) as T
  if (copy !== null && typeof copy === 'object') registerDeepFrozen(copy)
  return copy
}

function walk(value: unknown, root: string, trail: (string | number)[], open: object[], copy: boolean): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value === 0 ? 0 : value
    throw new Error(`${pathOf(root, trail)} is ${value}, which JSON cannot carry`)
  }
  if (typeof value !== 'object') throw new Error(`${pathOf(root, trail)} is ${value === undefined ? 'undefined' : `a ${typeof value}`}`)
  // Schemas are shallow: a list of the open ancestors is cheaper than a set, and so is building the path
  // only for a message.
  if (open.includes(value)) throw new Error(`${pathOf(root, trail)} refers back to itself`)
  open.push(value)
  let result: unknown[] | Record<string, unknown> | undefined
  if (Array.isArray(value)) {
    const items = copy ? new Array(value.length) : undefined
    for (let index = 0; index < value.length; index++) {
      trail.push(index)
      const item = walk(value[index], root, trail, open, copy)
      if (items) items[index] = item
      trail.pop()
    }
    result = items
  } else {
    if (!isPlainObject(value)) throw new Error(`${pathOf(root, trail)} is a ${value.constructor?.name ?? 'non-plain object'}, not a plain object`)
    const members: Record<string, unknown> | undefined = copy ? {} : undefined
    for (const key in value) {
      if (!hasOwn.call(value, key)) continue
      const member = (value as Record<string, unknown>)[key]
      if (member === undefined) continue
      trail.push(key)
      const item = walk(member, root, trail, open, copy)
      trail.pop()
      if (!members) continue
      // Assigning "__proto__" would set the copy's prototype; JSON.parse makes it an own data property.
      if (key === '__proto__') Object.defineProperty(members, key, { value: item, enumerable: true, writable: true, configurable: true })
      else members[key] = item
    }
    result = members
  }
  open.pop()
  return result ? Object.freeze(result) : value
}

function pathOf(root: string, trail: readonly (string | number)[]): string {
  return root + trail.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('')
}
