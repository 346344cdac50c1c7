import { hostname } from 'node:os'
import { randomBytes } from 'node:crypto'
import { Context } from 'cordis'
import PgSessionStore from 'dsh-session-postgres'
import { contractTurn } from 'dsh-session/testing'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { runBin, tempDir } from './setup.ts'

// The test process is one holder of the fleet: an in-process store holds three sessions, and the real
// dsh-prompt bin reads the fleet from another process.
const URL_ENV = 'DSH_TEST_FLEET_PG_URL'
const schema = `fleet_${randomBytes(5).toString('hex')}`
const where = ['--pg-url-env', URL_ENV, '--pg-schema', schema]
const ctx = new Context()
let store: { dispose(): Promise<unknown> } | undefined

/** A turn left open after one answer whose prompt tokens were `cached` of `input` cache reads. */
function openTurn(session: { append(type: string, data: object): unknown }, input: number, cached: number) {
  session.append('turn/start', { turn: 1 })
  session.append('user/message', { turn: 1, text: 'hi' })
  session.append('step/start', { turn: 1, step: 1 })
  session.append('assistant/message', { turn: 1, step: 1, text: 'a', toolCalls: [], usage: { inputTokens: input, outputTokens: 1, cacheReadTokens: cached, cacheWriteTokens: 0 } })
  session.append('step/end', { turn: 1, step: 1 })
}

beforeAll(async () => {
  process.env[URL_ENV] = inject('pgUrl')
  store = await ctx.plugin(PgSessionStore, { url: inject('pgUrl'), schema } as never)
  const warm = await ctx.sessions.create('warm')
  contractTurn(warm, 1)
  const cold = await ctx.sessions.create('cold')
  openTurn(cold, 100, 0)
  await new Promise((resolve) => setTimeout(resolve, 20))
  const later = await ctx.sessions.create('later')
  openTurn(later, 100, 50)
  const closed = await ctx.sessions.create('closed')
  contractTurn(closed, 1)
  await ctx.sessions.flush()
  await ctx.sessions.close('closed')
})
afterAll(async () => {
  delete process.env[URL_ENV]
  await store?.dispose()
  const client = new pg.Client({ connectionString: inject('pgUrl') })
  await client.connect()
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  await client.end()
})

describe('dsh-prompt sessions pg:', () => {
  it('names the live holders, the oldest open turn and the worst cached shares of the hour, as text', async () => {
    const result = await runBin(['sessions', 'pg:', ...where], await tempDir())
    expect(result).toMatchObject({ code: 0, stderr: '' })
    const me = `${hostname()}:${process.pid}`
    expect(result.stdout).toMatch(new RegExp(`^fleet of schema "${schema}" at postgres://[^ ]+ \\(4 stored sessions\\), \\S+\n\nlive holders: 1\n  ${me}  3 sessions  since \\S+Z\n\n`
      + `oldest open turn: session cold turn 1, started \\S+Z, held by ${me}\n\nworst cached share this hour:\n`
      + `  cold  0\\.0% cached  \\(0 of 100 prompt tokens, 1 request\\)  ${me}\n`
      + `  later  50\\.0% cached  \\(50 of 100 prompt tokens, 1 request\\)  ${me}\n`
      + `  warm  80\\.0% cached  \\(8 of 10 prompt tokens, 1 request\\)  ${me}\n$`))
    expect(result.stdout).not.toContain(new URL(inject('pgUrl')).password)
  })

  it('prints the same as one JSON object with --json', async () => {
    const result = await runBin(['sessions', 'pg:', '--json', ...where], await tempDir())
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report).toMatchObject({
      schema, stored: 4,
      holders: [{ host: hostname(), pid: process.pid, sessions: 3 }],
      oldestOpenTurn: { sessionId: 'cold', turn: 1, host: hostname(), pid: process.pid },
    })
    expect(report.worstCachedShare.map((share: { sessionId: string; cachedShare: number }) => [share.sessionId, share.cachedShare])).toEqual([['cold', 0], ['later', 0.5], ['warm', 0.8]])
  })

  it('refuses an input that is not pg: and a schema without a fleet, one line each', async () => {
    const dir = await tempDir()
    const bad = await runBin(['sessions', 'mysql://x'], dir)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toBe('sessions takes one fleet, pg: (the URL from --pg-url-env\'s variable) or pg:postgres://user@host/db, got 1 ("mysql://x"); usage: dsh-prompt sessions pg: [--json]\n')
    const empty = await runBin(['sessions', 'pg:', '--pg-url-env', URL_ENV, '--pg-schema', 'no_such_fleet'], dir)
    expect(empty.code).toBe(1)
    expect(empty.stderr).toMatch(/^sessions pg:: schema "no_such_fleet" at postgres:\/\/\S+ holds no DSH fleet \(no no_such_fleet\.holders table; a store of version 2 creates it\)\n$/)
  })
})
