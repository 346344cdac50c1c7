import { compareCodeUnits } from './compare.ts'

/**
 * A copy of a JSON value with object keys in code-unit order at every depth; arrays keep their order,
 * since array order carries meaning. Two values that differ only in key order yield the same
 * `JSON.stringify` bytes. A `"__proto__"` key is defined, not assigned, so it stays data.
 */
export function canonicalJson<T>(value: T): T {
  return canonicalize(value) as T
}

function canonicalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalize)
  if (value === null || typeof value !== 'object') return value
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort(compareCodeUnits)) {
    const item = canonicalize((value as Record<string, unknown>)[key])
    // Only "__proto__" needs defining (assigning it would set the prototype); assigning is much cheaper.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true })
    else copy[key] = item
  }
  return copy
}
