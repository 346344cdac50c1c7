/** Every way the tool runtime can refuse input; tests and callers switch on `code`. */
export type ToolErrorCode =
  | 'INVALID_TOOL'
  | 'INVALID_TOOL_NAME'
  | 'RESERVED_TOOL_NAME'
  | 'DUPLICATE_TOOL'
  | 'INVALID_PARAMETERS'
  | 'UNKNOWN_TOOL'
  | 'INVALID_CONFIG'
  | 'TIMEOUT'

/** The one error class of dsh-tools. */
export class ToolError extends Error {
  override name = 'ToolError'
  constructor(public readonly code: ToolErrorCode, message: string) {
    super(message)
  }
}

/** Quotes a value for a message the way JSON would, so odd characters stay visible. */
export function quote(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'function') return 'a function'
  if (Array.isArray(value)) return 'an array'
  if (value && typeof value === 'object') return 'an object'
  return String(value)
}

/** Lists names for a message, capped so a registry of thousands does not flood the log or the model. */
export function listNames(names: readonly string[], limit = 50): string {
  if (names.length === 0) return '(none)'
  const shown = names.slice(0, limit).join(', ')
  return names.length > limit ? `${shown}, … and ${names.length - limit} more` : shown
}

/** A thrown value as text, without assuming it is an `Error`. */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return error.message || error.name
  try {
    return String(error)
  } catch {
    return 'an unprintable value'
  }
}
