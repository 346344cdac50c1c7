import type { Context } from 'cordis'
import { CodedError, messageOf } from 'dsh-core'
import type { Session } from 'dsh-session'

/** A session reopened from its store, and the line to log about it (none when a turn already reported the failure). */
export interface Reopened {
  session: Session
  notice: string | undefined
}

/**
 * A session whose store refused a write (a deleted log, a database that went away) refuses every later
 * append, so before a new turn the agent reopens it from its store: what the store holds is loaded (the agent
 * closes its cut-off turn as it attaches it). Resolves undefined when the session never failed; rejects with
 * the store's own error while the store still cannot serve it. `reported` is the last error a turn reported:
 * a failure it carried is not told again.
 */
export async function reopenAfterStoreFailure(
  session: Session, sessions: Context['sessions'], reported: string | undefined,
): Promise<Reopened | undefined> {
  const failure = await session.flushed().then(() => undefined, (error: unknown) => error)
  if (!CodedError.is(failure, 'WRITE_FAILED')) return undefined
  const { id, stored } = session
  // the failed session's writer lets its file or connection go
  if (sessions.get(id) === session) await sessions.close(id).catch(() => {})
  // a session that never reached its store (its first write failed) starts there afresh
  const reopened = stored ? await sessions.open(id) : await sessions.openOrCreate(id)
  // a failure no turn reported (a connection lost while idle, a write between turns) is told once, now
  const message = messageOf(failure)
  const told = reported?.includes(message)
  return { session: reopened, notice: told ? undefined : `session "${id}" reopened from ${sessions.location} after a failure: ${message}` }
}
