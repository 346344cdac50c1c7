import { compareCodeUnits } from './compare.ts'

/**
 * A copy of a JSON value with object keys in code-unit order at every depth; arrays keep their order,
 * since array order carries meaning. Two values that differ only in key order yield the same
 * `JSON.stringify` bytes. Keys are defined, not assigned, so a `"__proto__"` key stays data.
 */
export function canonicalJson<T>(value: T): T {
  return canonicalize(value) as T
}

function canonicalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalize)
  if (value === null || typeof value !== 'object') return value
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort(compareCodeUnits)) {
    Object.defineProperty(copy, key, { value: canonicalize((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true })
  }
  return copy
}
