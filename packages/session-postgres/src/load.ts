import { Session, SessionError, restoreEvent } from 'dsh-session'
import { eventRows } from './cursor.ts'
import { pgFailure } from './describe-error.ts'
import { SessionPostgresError } from './errors.ts'
import { ident } from './schema.ts'
import type { PgTarget } from './target.ts'
import type { SessionWriter } from './writer.ts'

/**
 * Reads a session's events through a cursor on its writer's connection (under its lock), checking each
 * as it arrives. Fails with NOT_FOUND when the session does not exist; `known` skips that look when the
 * caller has just seen the session's row under the same lock.
 */
export async function loadSession(writer: SessionWriter, schema: string, target: PgTarget, known = false): Promise<Session> {
  const client = writer.connection
  const s = ident(schema)
  const id = writer.sessionId
  const session = new Session(id, { resumed: true, sink: writer })
  try {
    const found = known ? undefined : await client.query(`SELECT 1 FROM ${s}.sessions WHERE id = $1`, [id])
    if (found?.rowCount === 0) {
      throw new SessionError('NOT_FOUND', `session "${id}" does not exist in schema "${schema}" at ${target.safe}`)
    }
    for await (const row of eventRows(client, schema, id)) restore(session, row, schema)
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    if (SessionError.is(error) || SessionPostgresError.is(error)) throw error
    throw pgFailure(error, target, `loading session "${id}"`, 'READ_FAILED')
  }
  writer.nextSeq = session.lastSeq + 1
  return session
}

function restore(session: Session, row: { seq: number; body: unknown }, schema: string): void {
  try {
    const event = session[restoreEvent](row.body)
    if (event.seq !== row.seq) throw new SessionError('BAD_SEQ', `the row's seq ${row.seq} differs from its body's seq ${event.seq}`)
  } catch (error) {
    if (!SessionError.is(error)) throw error
    throw new SessionError(error.code, `schema "${schema}", session "${session.id}", seq ${row.seq}: ${error.message}`, { cause: error })
  }
}
