import { contractTurn } from 'dsh-session/testing'
import { describe, expect, it } from 'vitest'
import { freshSchema, sql, startStore } from './helpers.ts'

/** How many transactions wrote the session's events (rows one transaction inserted share its `xmin`), in seq order. */
async function transactions(schema: string, id: string): Promise<number[]> {
  const { rows } = await sql(`SELECT count(*)::int AS n FROM "${schema}".events WHERE session_id = $1 GROUP BY xmin::text ORDER BY min(seq)`, [id])
  return rows.map(row => row.n)
}

describe('a turn logged back to back is one round trip', () => {
  it('events appended in one turn of the event loop commit in one INSERT; appends while it is in flight go in the next', async () => {
    const schema = freshSchema()
    const { sessions } = await startStore({ schema })
    const session = await sessions.create('batched')
    contractTurn(session, 1)
    await session.flushed()
    // the first turn's 13 events, session row included, in one transaction (it was 1 + 12 before)
    expect(await transactions(schema, 'batched')).toEqual([13])

    contractTurn(session, 2)
    const inFlight = session.flushed()
    await new Promise(resolve => setImmediate(resolve))
    contractTurn(session, 3)
    await inFlight
    await session.flushed()
    expect(await transactions(schema, 'batched')).toEqual([13, 13, 13])
  })
})
