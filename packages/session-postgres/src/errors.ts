import { CodedError } from 'dsh-core'

/** Every way dsh-session-postgres can fail; tests and callers switch on `code`. */
export type PgSessionErrorCode =
  | 'CONFIG'
  | 'CONNECT'
  | 'AUTH'
  | 'SCHEMA'
  | 'BUSY'
  | 'WRITE_FAILED'
  | 'READ_FAILED'
  | 'BAD_REQUEST'
  | 'NOT_HELD'
  | 'KEPT'
  | 'NO_ANSWER'

/** The one error class of dsh-session-postgres. Its message never contains the database password. */
export class PgSessionError extends CodedError<PgSessionErrorCode> {
  override name = 'PgSessionError'
}
