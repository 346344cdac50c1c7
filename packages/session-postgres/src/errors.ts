import { CodedError } from 'dsh-core'
import type { SessionHolder } from 'dsh-session'

/** Every way dsh-session-postgres can fail; tests and callers switch on `code`. */
export type SessionPostgresErrorCode =
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

/** What a SessionPostgresError knows beside its message: for `BUSY`, the live holder when the fleet knows it. */
export interface SessionPostgresErrorDetails {
  holder?: SessionHolder & { lastTime: string | undefined }
}

/** The one error class of dsh-session-postgres. Its message never contains the database password. */
export class SessionPostgresError extends CodedError<SessionPostgresErrorCode, SessionPostgresErrorDetails> {
  static override readonly marker = 'dsh-session-postgres'
  override name = 'SessionPostgresError'
}
