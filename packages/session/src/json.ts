/** True for an object literal (or a null-prototype object): what JSON reads an object as. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

export interface JsonProblem {
  path: string
  reason: string
  value: unknown
}

/** Finds the first value JSON cannot carry faithfully (it would be dropped, nulled or thrown on). */
export function findNonJson(value: unknown, path: string, seen = new Set<object>()): JsonProblem | undefined {
  const here = path || 'data'
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return
    case 'number':
      return Number.isFinite(value) ? undefined : { path: here, reason: 'numbers must be finite', value }
    case 'object':
      break
    default:
      return { path: here, reason: `JSON has no ${typeof value}`, value }
  }
  if (value === null) return
  if (seen.has(value)) return { path: here, reason: 'circular reference', value }
  seen.add(value)
  try {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const problem = value[i] === undefined
          ? { path: `${path}[${i}]`, reason: 'arrays cannot hold undefined', value: undefined }
          : findNonJson(value[i], `${path}[${i}]`, seen)
        if (problem) return problem
      }
      return
    }
    if (!isPlainObject(value)) return { path: here, reason: 'only plain objects', value }
    for (const [key, item] of Object.entries(value)) {
      // An undefined property is simply absent in JSON, as for optional fields.
      if (item === undefined) continue
      const problem = findNonJson(item, path ? `${path}.${key}` : key, seen)
      if (problem) return problem
    }
  } finally {
    seen.delete(value)
  }
}
