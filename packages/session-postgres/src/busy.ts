import type { SessionHolder } from 'dsh-session'
import { SessionPostgresError } from './errors.ts'
import { ago, processName } from './holders.ts'
import type { PgTarget } from './target.ts'

/**
 * BUSY for a session another connection holds, naming its holder (`details.holder`) when the fleet knows it:
 * `session "s" is busy: another process is writing it: dev-1:4242 since 2026-… (last wrote 12 s ago) (…lock…)`:
 * who holds it and how long ago it last wrote, or that its holder is not recorded (yet, or by an older version).
 */
export function busyError(id: string, place: { schema: string; target: PgTarget }, holder: (SessionHolder & { lastTime: string | undefined }) | undefined): SessionPostgresError {
  const who = holder
    ? `process ${processName(holder)} holds it since ${holder.since} and ${holder.lastTime ? `last wrote ${ago(holder.lastTime)}` : 'has written nothing yet'}`
    : 'its holder is not recorded'
  return new SessionPostgresError('BUSY', `session "${id}" is busy: another process is writing it: ${who} (it holds the session's PostgreSQL advisory `
    + `lock in schema "${place.schema}" at ${place.target.safe}); one writer per session; the lock is released when that process `
    + 'closes the session or its connection ends, or when it grants a release request', { details: holder ? { holder } : {} })
}
