import { CodedError } from 'dsh-core'

/** Every way dsh-session can refuse input or fail; tests and callers switch on `code`. */
export type SessionErrorCode =
  | 'INVALID_EVENT'
  | 'INVALID_ID'
  | 'CORRUPT_LINE'
  | 'BAD_SEQ'
  | 'NOT_FOUND'
  | 'EXISTS'
  | 'WRITE_FAILED'

/** The one error class of dsh-session. */
export class SessionError extends CodedError<SessionErrorCode> {
  override name = 'SessionError'
}
