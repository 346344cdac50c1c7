import { CodedError } from 'dsh-core'

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
  | 'UNSAFE_FILE'
  | 'BUSY'
  | 'INVALID_CONFIG'

/** The one error class of dsh-session. */
export class SessionError extends CodedError<SessionErrorCode> {
  static override readonly marker = 'dsh-session'
  override name = 'SessionError'
}
