/**
 * A copy of a JSON value with object keys in code-unit order at every depth. A server that lists the same
 * schema with its keys in another order (another version, another start) then yields the same bytes.
 * Code-unit order (plain `<` on strings) does not depend on the locale.
 */
export function canonicalJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalJson)
  if (value === null || typeof value !== 'object') return value
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    // defined, not assigned: a "__proto__" key stays data
    Object.defineProperty(copy, key, { value: canonicalJson((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true })
  }
  return copy
}
