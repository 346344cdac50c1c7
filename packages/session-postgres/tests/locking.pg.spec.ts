import { contractTurn } from 'dsh-session/testing'
import { describe, expect, it } from 'vitest'
import { readSessionEvents } from '../src/index.ts'
import { freshSchema, logText, pgUrl, sql, startStore } from './helpers.ts'

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(Error)
  return error as { code?: string; message: string }
}

describe('one writer per session', () => {
  it('refuses a second writer with BUSY naming the session, until the first closes it', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    const b = await startStore({ schema })
    const held = await a.sessions.create('held')
    contractTurn(held, 1)
    await held.flushed()
    for (const attempt of [() => b.sessions.open('held'), () => b.sessions.openOrCreate('held'), () => b.sessions.create('held')]) {
      const error = await rejection(attempt())
      expect(error.code).toBe('BUSY')
      expect(error.message).toContain('session "held" is busy')
    }
    expect(await b.sessions.list()).toEqual(['held'])
    await a.sessions.close('held')
    const resumed = await b.sessions.open('held')
    expect(resumed.lastSeq).toBe(13)
    expect((await rejection(a.sessions.open('held'))).code).toBe('BUSY')
  })

  it('holds a created id with its lock before any event is stored; closed without events, it leaves no row', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    const b = await startStore({ schema })
    await a.sessions.create('reserved')
    expect((await rejection(b.sessions.create('reserved'))).code).toBe('BUSY')
    expect(await b.sessions.list()).toEqual([])
    await a.sessions.close('reserved')
    expect((await sql(`SELECT id FROM "${schema}".sessions`)).rows).toEqual([])
    const taken = await b.sessions.create('reserved')
    taken.append('turn/start', { turn: 1 })
    await taken.flushed()
    expect((await sql(`SELECT id FROM "${schema}".sessions`)).rows).toEqual([{ id: 'reserved' }])
  })

  it('loses the lock with the connection: the writer fails its turn naming the store, the process keeps serving', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema, applicationName: 'dsh-writer-a' })
    const session = await a.sessions.create('dropped')
    contractTurn(session, 1)
    await session.flushed()
    await sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dsh-writer-a' AND pid <> pg_backend_pid()`)

    const b = await startStore({ schema })
    const taken = await b.sessions.open('dropped')
    expect(taken.lastSeq).toBe(13)

    let error: { code?: string; message: string } | undefined
    try {
      contractTurn(session, 2)
      await session.flushed()
    } catch (e) {
      error = e as Error
    }
    expect(error?.code).toBe('WRITE_FAILED')
    expect(error?.message).toMatch(/^session store postgresql: cannot persist session "dropped": lost the connection to PostgreSQL at postgres:\/\/dsh_test@/)
    expect(error?.message).not.toContain('\n')
    // the caller heard it; the store logs it only at the debug level, so a user reads it once
    expect(logText(a.logs.filter((message) => message.type !== 'debug'))).not.toContain('cannot persist')
    expect(() => session.append('turn/start', { turn: 3 })).toThrow(/cannot persist/)
    const other = await a.sessions.create('other')
    contractTurn(other, 1)
    await other.flushed()
    expect((await b.sessions.open('other').catch((e: { code: string }) => e.code))).toBe('BUSY')

    // Close and open again once the other writer is gone: what was committed comes back.
    expect((await rejection(a.sessions.close('dropped'))).code).toBe('WRITE_FAILED')
    await b.sessions.close('dropped')
    expect((await a.sessions.open('dropped')).lastSeq).toBe(13)
  })

  it('lets a reader stream a session while its writer holds it', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    const session = await a.sessions.create('read-me')
    contractTurn(session, 1)
    await session.flushed()
    const seqs: number[] = []
    for await (const row of readSessionEvents({ url: pgUrl(), schema }, 'read-me')) seqs.push(row.seq)
    expect(seqs).toEqual(session.events().map(event => event.seq))
    const missing = await rejection((async () => { for await (const _ of readSessionEvents({ url: pgUrl(), schema }, 'nope')) break })())
    expect(missing.code).toBe('NOT_FOUND')
    session.append('turn/start', { turn: 2 })
    await session.flushed()
  })

  it('migrates once when stores start together on a new schema', async () => {
    const schema = freshSchema()
    await Promise.all([startStore({ schema }), startStore({ schema }), startStore({ schema })])
    const { rows } = await sql(`SELECT version FROM "${schema}".schema_version ORDER BY version`)
    expect(rows).toEqual([{ version: 1 }, { version: 2 }])
  })

  it('loads a session longer than one cursor fetch', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    const long = await a.sessions.create('long')
    for (let turn = 1; turn <= 200; turn++) contractTurn(long, turn)
    await a.sessions.close('long')
    const b = await startStore({ schema })
    const loaded = await b.sessions.open('long')
    expect(loaded.lastSeq).toBe(2600)
    expect(loaded.events().map(event => JSON.stringify(event))).toEqual(long.events().map(event => JSON.stringify(event)))
  })
})
