/** Quotes a value for an error message the way JSON would, so odd characters stay visible. */
export function quote(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}

/** Names a value for an error message: strings JSON-quoted, scalars as written, the rest by kind. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'function') return 'a function'
  if (Array.isArray(value)) return 'an array'
  return 'an object'
}

/** Lists names for an error message, capped so a registry of thousands does not flood the log or the model. */
export function listNames(names: Iterable<string>, limit = 50): string {
  const all = [...names]
  if (all.length === 0) return '(none)'
  const shown = all.slice(0, limit).join(', ')
  return all.length > limit ? `${shown}, … and ${all.length - limit} more` : shown
}

/**
 * Text as one line: every run of whitespace that holds a line break becomes one space, the ends are
 * trimmed, other spacing is kept; past `max` characters it is cut and ends with `…`.
 */
export function oneLine(text: string, max = Infinity): string {
  const flat = text.trim().replace(/\s*[\r\n\u2028\u2029]\s*/g, ' ')
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/** A thrown value as one line of text, without assuming it is an `Error`. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return 'an unprintable value'
  }
}
