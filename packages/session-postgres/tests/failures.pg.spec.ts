import { createServer } from 'node:net'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import { describe, expect, it } from 'vitest'
import { PgSessionStore } from '../src/store.ts'
import { SCHEMA_VERSION } from '../src/schema.ts'
import { freshSchema, logText, pgUrl, sql, startStore } from './helpers.ts'

async function refusal(config: Record<string, unknown>): Promise<{ code?: string; message: string }> {
  const ctx = new Context()
  const error = await ctx.plugin(PgSessionStore, config as never).then(() => undefined, (e: unknown) => e)
  expect(error, 'the store should refuse to start').toBeInstanceOf(Error)
  return error as { code?: string; message: string }
}

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

describe('config', () => {
  it.each([
    [{ url: 5 }, /url/],
    [{ urlEnv: 'not a name' }, /urlEnv/],
    [{ poolSize: 0 }, /poolSize/],
    [{ poolSize: 'four' }, /poolSize/],
    [{ schema: 'Bad-Name' }, /schema/],
    [{ schema: '' }, /schema/],
    [{ applicationName: '' }, /applicationName/],
    [{ connectTimeoutMs: 0 }, /connectTimeoutMs/],
    [{ connectTimeoutMs: 2 ** 31 }, /connectTimeoutMs/],
    [{ durability: 'none' }, /durability/],
    [{ durability: 'always' }, /durability/],
  ])('rejects %j naming the key', async (bad, message) => {
    const error = await refusal({ url: 'postgres://u:hunter2pw@127.0.0.1:1/db', ...bad })
    expect(error.message).toMatch(message)
    expect(error.message).not.toContain('hunter2pw')
  })

  it.each([
    [{}, /set "urlEnv".*or "url"/],
    [{ url: 'postgres://a@b/c', urlEnv: 'X' }, /only one of "url" and "urlEnv"/],
    [{ urlEnv: 'DSH_TEST_UNSET_VARIABLE' }, /variable "DSH_TEST_UNSET_VARIABLE", which is not set/],
    [{ url: 'mysql://u:secret@h/db' }, /scheme "mysql"; valid schemes: postgres, postgresql/],
    [{ url: 'not a url' }, /not a URL/],
  ])('refuses the database setting %j with one line', async (bad, message) => {
    const error = await refusal(bad)
    expect(error.code).toBe('CONFIG')
    expect(error.message).toMatch(message)
    expect(error.message).not.toContain('secret')
  })

  it('reads the URL from the variable urlEnv names and never logs the password', async () => {
    const password = new URL(pgUrl()).password
    process.env.DSH_TEST_PG_STORE_URL = pgUrl()
    try {
      const { logs, sessions } = await startStore({ url: undefined, urlEnv: 'DSH_TEST_PG_STORE_URL', schema: freshSchema() })
      expect(sessions.target.safe).toMatch(/^postgres:\/\/dsh_test@127\.0\.0\.1:\d+\/postgres$/)
      expect(logText(logs)).toContain(`sessions in PostgreSQL at ${sessions.target.safe}`)
      expect(logText(logs)).not.toContain(password)
    } finally {
      delete process.env.DSH_TEST_PG_STORE_URL
    }
  })
})

describe('connection failures', () => {
  it('says so in one line when the connection is refused', async () => {
    const port = await closedPort()
    const error = await refusal({ url: `postgres://dsh_test:hunter2secret@127.0.0.1:${port}/postgres` })
    expect(error.code).toBe('CONNECT')
    expect(error.message).toBe(`cannot connect to PostgreSQL at postgres://dsh_test@127.0.0.1:${port}/postgres: connection refused (is the server running and listening there?)`)
  })

  it('says so in one line when authentication fails, without the password', async () => {
    const url = new URL(pgUrl())
    url.password = 'wrong-Pa55word'
    const error = await refusal({ url: url.href })
    expect(error.code).toBe('AUTH')
    expect(error.message).toMatch(/^PostgreSQL at postgres:\/\/dsh_test@127\.0\.0\.1:\d+\/postgres refused the login of user "dsh_test": authentication failed/)
    expect(error.message).not.toContain('wrong-Pa55word')
    expect(error.message).not.toContain('\n')
  })
})

describe('schema versions', () => {
  it('creates the tables with a version row and fails in one line on a newer schema', async () => {
    const schema = freshSchema()
    const first = await startStore({ schema })
    await first.fiber.dispose()
    const { rows } = await sql(`SELECT max(version) AS version FROM "${schema}".schema_version`)
    expect(rows).toEqual([{ version: SCHEMA_VERSION }])
    const columns = await sql(`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'events' ORDER BY ordinal_position`, [schema])
    expect(columns.rows).toEqual([
      { column_name: 'session_id', data_type: 'text' },
      { column_name: 'seq', data_type: 'integer' },
      { column_name: 'body', data_type: 'json' },
    ])
    await sql(`INSERT INTO "${schema}".schema_version (version) VALUES (${SCHEMA_VERSION + 1})`)
    const error = await refusal({ url: pgUrl(), schema })
    expect(error.code).toBe('SCHEMA')
    expect(error.message).toBe(`schema "${schema}" is at version ${SCHEMA_VERSION + 1}, newer than this dsh-session-postgres knows (${SCHEMA_VERSION}); upgrade dsh-session-postgres or point "schema" elsewhere`)
  })
})

describe('with the agent loop', () => {
  it('a connection killed while idle: the next turn reopens the session, says so in one info line, and works', async () => {
    const schema = freshSchema()
    const { ctx } = await startStore({ schema, applicationName: 'dsh-loop-writer' })
    const lines: string[] = []
    ctx.logger.exporter({ export: (message) => { lines.push(`[${message.type}] ${message.name}: ${message.args.join(' ')}`) } })
    await ctx.plugin(AgentSpine, { sessionStore: 'external' } as never)
    const agent = await ctx.agentLoop.createAgent({ id: 'a1' })
    expect((await agent.prompt('hi')).reason).toBe('done')
    await sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'dsh-loop-writer' AND pid <> pg_backend_pid()`)
    // the idle writer hears of it (its connection's 'error'), so the next turn finds the session failed
    const failed = agent.session
    await expect.poll(() => failed.flushed().then(() => 'ok', (error: { code?: string }) => error.code)).toBe('WRITE_FAILED')
    const next = await agent.prompt('again')
    expect(next).toMatchObject({ reason: 'done', turn: 2, text: 'echo: again' })
    expect(agent.session).not.toBe(failed)
    const told = lines.filter((line) => !line.startsWith('[debug]') && line.includes('a1'))
    expect(told).toHaveLength(1)
    expect(told[0]).toMatch(/^\[info\] agent-loop: session "a1" reopened from PostgreSQL at postgres:\/\/dsh_test@127\.0\.0\.1:\d+\/postgres, schema "t_[0-9a-f]+" after a failure: session store postgresql: cannot persist session "a1": lost the connection/)
    const fresh = await ctx.agentLoop.createAgent({ id: 'a2' })
    expect(await fresh.prompt('still here')).toMatchObject({ reason: 'done', text: 'echo: still here' })
    for (const id of ['a1', 'a2']) {
      const { rows } = await sql(`SELECT count(*)::int AS n FROM "${schema}".events WHERE session_id = $1`, [id])
      expect(rows[0].n).toBe(ctx.agentLoop.agent(id).session.lastSeq)
    }
  })
})
