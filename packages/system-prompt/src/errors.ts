/** Every way the system-prompt service can refuse input; tests and callers switch on `code`. */
export type SystemPromptErrorCode =
  | 'INVALID_TOOL_ORDER'
  | 'UNKNOWN_TOOL_ORDER_NAME'
  | 'RESERVED_TOOL_NAME'
  | 'DUPLICATE_TOOL'
  | 'INVALID_TOOL_SCHEMA'
  | 'INVALID_PROVIDER_RESULT'
  | 'DUPLICATE_SECTION'
  | 'INVALID_SECTION'
  | 'DUPLICATE_VARIABLE'
  | 'INVALID_VARIABLE'
  | 'UNKNOWN_VARIABLE'
  | 'MISSING_VARIABLE'
  | 'MALFORMED_PLACEHOLDER'

/** The one error class of dsh-system-prompt. */
export class SystemPromptError extends Error {
  override name = 'SystemPromptError'
  constructor(public readonly code: SystemPromptErrorCode, message: string) {
    super(message)
  }
}

/** Quotes a value for an error message the way JSON would, so odd characters stay visible. */
export function quote(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value)
}

/** Lists names for an error message, capped so a 10,000-tool registry does not flood the log. */
export function listNames(names: Iterable<string>, limit = 50): string {
  const all = [...names]
  if (all.length === 0) return '(none)'
  const shown = all.slice(0, limit).join(', ')
  return all.length > limit ? `${shown}, … and ${all.length - limit} more` : shown
}
