import { CodedError } from 'dsh-core'

/** Every way dsh-session-postgres can fail; tests and callers switch on `code`. */
export type SessionPostgresErrorCode =
  | 'CONFIG'
  | 'CONNECT'
  | 'AUTH'
  | 'SCHEMA'
  | 'BUSY'
  | 'WRITE_FAILED'
  | 'READ_FAILED'

/** The one error class of dsh-session-postgres. Its message never contains the database password. */
export class SessionPostgresError extends CodedError<SessionPostgresErrorCode> {
  static override readonly marker = 'dsh-session-postgres'
  override name = 'SessionPostgresError'
}
