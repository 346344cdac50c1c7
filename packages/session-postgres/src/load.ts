import { Session, SessionError, restoreEvent } from 'dsh-session'
import { pgFailure } from './describe-error.ts'
import { PgSessionError } from './errors.ts'
import { ident } from './schema.ts'
import type { PgTarget } from './target.ts'
import type { SessionWriter } from './writer.ts'

/** Rows fetched per round trip: bounds the memory of a load, whatever the length of the session. */
export const FETCH_ROWS = 1000

/**
 * Reads a session's events through a server-side cursor on its writer's connection (under its lock), so
 * a long session is never one result set in memory. Fails with NOT_FOUND when the session does not exist.
 */
export async function loadSession(writer: SessionWriter, schema: string, target: PgTarget): Promise<Session> {
  const client = writer.connection
  const s = ident(schema)
  const id = writer.sessionId
  const session = new Session(id, { resumed: true, sink: writer })
  try {
    const found = await client.query(`SELECT 1 FROM ${s}.sessions WHERE id = $1`, [id])
    if (found.rowCount === 0) {
      throw new SessionError('NOT_FOUND', `session "${id}" does not exist in schema "${schema}" at ${target.safe}`)
    }
    await client.query('BEGIN READ ONLY')
    // The id matched the session-id pattern, so it is safe as a literal; DECLARE takes no bind parameters.
    await client.query(`DECLARE dsh_load NO SCROLL CURSOR FOR SELECT seq, body FROM ${s}.events WHERE session_id = ${client.escapeLiteral(id)} ORDER BY seq`)
    for (;;) {
      const { rows } = await client.query<{ seq: number; body: unknown }>(`FETCH ${FETCH_ROWS} FROM dsh_load`)
      for (const row of rows) restore(session, row, schema)
      if (rows.length < FETCH_ROWS) break
    }
    await client.query('COMMIT')
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    if (error instanceof SessionError || error instanceof PgSessionError) throw error
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
    if (!(error instanceof SessionError)) throw error
    throw new SessionError(error.code, `schema "${schema}", session "${session.id}", seq ${row.seq}: ${error.message}`, { cause: error })
  }
}
