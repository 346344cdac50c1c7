/** Every way dsh-session can refuse input or fail; tests and callers switch on `code`. */
export type SessionErrorCode =
  | 'INVALID_EVENT'
  | 'INVALID_ID'
  | 'CORRUPT_LINE'
  | 'LINE_TOO_LONG'
  | 'BAD_SEQ'
  | 'NOT_FOUND'
  | 'EXISTS'
  | 'WRITE_FAILED'
  | 'INVALID_CONFIG'

/** The one error class of dsh-session. */
export class SessionError extends Error {
  override name = 'SessionError'
  constructor(public readonly code: SessionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
  }
}

/** Renders a value for an error message: strings JSON-quoted, everything else short and visible. */
export function describe(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'function') return 'a function'
  if (Array.isArray(value)) return 'an array'
  return `an object`
}
