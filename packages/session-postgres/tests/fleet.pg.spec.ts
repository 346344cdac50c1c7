import { hostname } from 'node:os'
import { contractTurn } from 'dsh-session/testing'
import type { SessionPage } from '../src/fleet-types.ts'
import type { SessionPostgresError } from '../src/errors.ts'
import { describe, expect, it } from 'vitest'
import pg from 'pg'
import { freshSchema, pgUrl, sql, startStore } from './helpers.ts'

const self = { host: hostname(), pid: process.pid }

async function rejection(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  const error = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(Error)
  return error as { code?: string; message: string }
}

async function stored(store: Awaited<ReturnType<typeof startStore>>, id: string, turns = 1) {
  const session = await store.sessions.create(id)
  for (let turn = 1; turn <= turns; turn++) contractTurn(session, turn)
  await session.flushed()
  return session
}

const ids = (page: SessionPage) => page.sessions.map((session) => session.id)

describe('the fleet listing', () => {
  it('lists every stored session from another store, open or not, with its live holder, its title and last time', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    const b = await startStore({ schema })
    await stored(a, 's1')
    await stored(a, 's2', 2)
    await stored(b, 's3')
    await b.sessions.close('s3')
    const page = await b.sessions.fleet.page({ limit: 10, turns: true })
    expect(ids(page).sort()).toEqual(['s1', 's2', 's3'])
    const byId = Object.fromEntries(page.sessions.map((session) => [session.id, session]))
    expect(byId.s1!.holder).toMatchObject(self)
    expect(Date.parse(byId.s1!.holder!.since)).toBeGreaterThan(Date.now() - 60_000)
    expect(byId.s2!.turns).toBe(2)
    expect(byId.s3!.holder).toBeUndefined()
    expect(byId.s1!.lastTime).toMatch(/^\d{4}-/)
    expect(page.next).toBeUndefined()
    // the holder's row goes with close(); a session another store holds is read without its lock
    await a.sessions.close('s1')
    expect((await b.sessions.fleet.page({ limit: 10 })).sessions.find((session) => session.id === 's1')!.holder).toBeUndefined()
    expect((await sql(`SELECT session_id FROM "${schema}".holders ORDER BY 1`)).rows).toEqual([{ session_id: 's2' }])
  })

  it('a holder whose connection died leaves a stale row, never listed as live, overwritten by the next holder', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema, applicationName: 'dsh-fleet-dead' })
    await stored(a, 'cut')
    await sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dsh-fleet-dead' AND pid <> pg_backend_pid()`)
    const b = await startStore({ schema })
    expect((await sql(`SELECT count(*)::int AS n FROM "${schema}".holders`)).rows).toEqual([{ n: 1 }])
    await expect.poll(async () => (await b.sessions.fleet.page({ limit: 5 })).sessions[0]!.holder).toBeUndefined()
    expect(await b.sessions.fleet.holder('cut')).toBeUndefined()
    await b.sessions.open('cut')
    expect((await b.sessions.fleet.page({ limit: 5 })).sessions[0]!.holder).toMatchObject(self)
  })

  it('pages by cursor, newest stored first, with no session twice or skipped while sessions are created between pages', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    for (let i = 0; i < 7; i++) { await stored(a, `p${i}`); await a.sessions.close(`p${i}`) }
    const first = await a.sessions.fleet.page({ limit: 3 })
    expect(ids(first)).toEqual(['p6', 'p5', 'p4'])
    await stored(a, 'late')
    const second = await a.sessions.fleet.page({ limit: 3, after: first.next })
    const third = await a.sessions.fleet.page({ limit: 3, after: second.next })
    expect([...ids(second), ...ids(third)]).toEqual(['p3', 'p2', 'p1', 'p0'])
    expect(third.next).toBeUndefined()
    expect(ids(await a.sessions.fleet.page({ limit: 1 }))).toEqual(['late'])
  })

  it('walks the creation index, one statement per page (EXPLAIN)', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    await stored(a, 'x')
    const { pageQuery } = await import('../src/listing.ts')
    const query = pageQuery(schema, { limit: 50, after: { created: '2999-01-01T00:00:00.000000Z', id: 'z' } })
    await sql(`ANALYZE "${schema}".sessions`)
    const plan = (await sql(`SET enable_seqscan = off; EXPLAIN ${query.text.replace(/\$(\d+)/g, (_, n) => literal(query.values[Number(n) - 1]))}`) as unknown as { rows: { 'QUERY PLAN': string }[] }[])
    const text = plan.at(-1)!.rows.map((row) => row['QUERY PLAN']).join('\n')
    expect(text).toMatch(/Index (Only )?Scan Backward using sessions_by_created/)
    expect(text).toMatch(/Limit/)
  })

  it('refuses a forged position and a bad limit with one line each', async () => {
    const a = await startStore({ schema: freshSchema() })
    const forged = await rejection(a.sessions.fleet.page({ limit: 5, after: { created: "x'; DROP TABLE", id: 'a' } }))
    expect(forged).toMatchObject({ code: 'BAD_REQUEST' })
    expect(forged.message).toMatch(/^listing position .* is not one a page gave out/)
    expect((await rejection(a.sessions.fleet.page({ limit: 0 }))).message).toBe('page limit 0 is not an integer from 1 to 1000')
  })
})

describe('BUSY names the holder', () => {
  it('says which process holds the session, since when, and how long ago it last wrote', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    const b = await startStore({ schema })
    await stored(a, 'held')
    const error = await rejection(b.sessions.open('held'))
    expect(error.code).toBe('BUSY')
    expect(error.message).toMatch(new RegExp(`^session "held" is busy: another process is writing it: process ${hostname()}:${process.pid} `
      + 'holds it since \\d{4}-\\d\\d-\\d\\dT[^ ]+Z and last wrote \\d+ s ago \\(it holds'))
    expect((error as SessionPostgresError).details.holder).toMatchObject(self)
  })
})

describe('holders of another version', () => {
  it('a lock without a holder row says its holder is not recorded', async () => {
    const schema = freshSchema()
    const b = await startStore({ schema })
    const { lockKey } = await import('../src/lock-key.ts')
    const client = new pg.Client({ connectionString: pgUrl() })
    await client.connect()
    try {
      await client.query('SELECT pg_advisory_lock($1::bigint)', [lockKey(schema, 'bare')])
      const error = await rejection(b.sessions.open('bare'))
      expect(error.message).toMatch(/^session "bare" is busy: another process is writing it: its holder is not recorded \(it holds/)
    } finally {
      await client.end()
    }
  })

  it('brings a version-1 schema to version 2 on start, its sessions listed', async () => {
    const schema = freshSchema()
    await sql(`CREATE SCHEMA "${schema}"; CREATE TABLE "${schema}".schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());
      INSERT INTO "${schema}".schema_version (version) VALUES (1);
      CREATE TABLE "${schema}".sessions (id text PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE "${schema}".events (session_id text NOT NULL REFERENCES "${schema}".sessions (id) ON DELETE CASCADE, seq integer NOT NULL CHECK (seq > 0), body json NOT NULL, PRIMARY KEY (session_id, seq));
      INSERT INTO "${schema}".sessions (id) VALUES ('old');`)
    const a = await startStore({ schema })
    expect((await sql(`SELECT max(version) AS v FROM "${schema}".schema_version`)).rows).toEqual([{ v: 2 }])
    expect(ids(await a.sessions.fleet.page({ limit: 5 }))).toEqual(['old'])
  })
})

describe('release requests', () => {
  it('a holder that grants closes the session; the requester then opens it', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    const b = await startStore({ schema })
    await stored(a, 'wanted')
    const asked: unknown[] = []
    a.sessions.fleet.onReleaseRequest((request) => {
      asked.push(request)
      return a.sessions.close(request.sessionId).then(() => ({ released: true as const }))
    })
    const { holder } = await b.sessions.fleet.requestRelease('wanted', { waitMs: 2000, holder: self })
    expect(holder).toMatchObject(self)
    expect(asked).toEqual([{ sessionId: 'wanted', from: self, waitMs: 2000 }])
    expect((await b.sessions.open('wanted')).lastSeq).toBe(13)
  })

  it('a holder that keeps it, one without a handler, and one that does not answer in time: each a coded error, the session kept', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    const b = await startStore({ schema })
    await stored(a, 'kept')
    const none = await rejection(b.sessions.fleet.requestRelease('kept', { waitMs: 100 }))
    expect(none.code).toBe('KEPT')
    expect(none.message).toBe(`process ${hostname()}:${process.pid} keeps session "kept": no client connection of this process serves the session, so none can hand it over`)
    const stop = a.sessions.fleet.onReleaseRequest(() => Promise.resolve({ released: false, reason: 'a turn is running' }))
    expect((await rejection(b.sessions.fleet.requestRelease('kept', { waitMs: 100 }))).message).toMatch(/keeps session "kept": a turn is running$/)
    stop()
    a.sessions.fleet.onReleaseRequest(() => new Promise(() => {}))
    const silent = await rejection(b.sessions.fleet.requestRelease('kept', { waitMs: 50 }))
    expect(silent.code).toBe('NO_ANSWER')
    expect(silent.message).toMatch(/did not answer the release request for session "kept" within 50 ms .*it keeps the session: a release is never forced$/)
    expect(a.sessions.get('kept')).toBeDefined()
    expect((await rejection(b.sessions.open('kept'))).code).toBe('BUSY')
  })

  it('refuses a session nobody holds, a holder that does not hold it, a bad id, a bad wait, and a session this process holds', async () => {
    const schema = freshSchema()
    const a = await startStore({ schema })
    const b = await startStore({ schema })
    await stored(a, 'mine')
    await stored(b, 'free')
    await b.sessions.close('free')
    expect(await rejection(b.sessions.fleet.requestRelease('free', { waitMs: 10 }))).toMatchObject({
      code: 'NOT_HELD', message: 'session "free" is not held by any live process: there is nothing to release (session/load takes it)' })
    expect(await rejection(b.sessions.fleet.requestRelease('mine', { waitMs: 10, holder: { host: 'ghost', pid: 1 } }))).toMatchObject({
      code: 'NOT_HELD', message: `process ghost:1 does not hold session "mine": its holder is ${hostname()}:${process.pid}` })
    expect((await rejection(b.sessions.fleet.requestRelease('no such/id', { waitMs: 10 }))).message).toMatch(/^invalid session id "no such\/id"/)
    expect((await rejection(b.sessions.fleet.requestRelease('mine', { waitMs: -1 }))).message).toMatch(/^release wait -1 is not an integer/)
    expect((await rejection(a.sessions.fleet.requestRelease('mine', { waitMs: 10 }))).message).toMatch(/is held by this process .*close it instead/)
    expect(a.sessions.get('mine')).toBeDefined()
  })
})

function literal(value: unknown): string {
  if (Array.isArray(value)) return `ARRAY[${value.map(literal).join(',')}]::text[]`
  return typeof value === 'number' ? String(value) : `'${String(value).replace(/'/g, "''")}'`
}
