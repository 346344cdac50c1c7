import type pg from 'pg'
import { ident } from './schema.ts'

/** Rows fetched per round trip: bounds the memory of a read, whatever the length of the session. */
export const FETCH_ROWS = 1000

/**
 * Yields a session's rows in seq order through a server-side cursor, inside a read-only transaction on
 * `client`, so a long session is never one result set in memory. The caller handles errors (ROLLBACK).
 */
export async function* eventRows(client: pg.ClientBase, schema: string, id: string): AsyncGenerator<{ seq: number; body: unknown }> {
  await client.query('BEGIN READ ONLY')
  // DECLARE takes no bind parameters; the id is a checked session id and is escaped all the same.
  await client.query(`DECLARE dsh_events NO SCROLL CURSOR FOR SELECT seq, body FROM ${ident(schema)}.events `
    + `WHERE session_id = ${client.escapeLiteral(id)} ORDER BY seq`)
  for (;;) {
    const { rows } = await client.query<{ seq: number; body: unknown }>(`FETCH ${FETCH_ROWS} FROM dsh_events`)
    yield* rows
    if (rows.length < FETCH_ROWS) break
  }
  await client.query('COMMIT')
}
