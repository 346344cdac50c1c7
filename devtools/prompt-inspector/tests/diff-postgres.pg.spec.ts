import { randomBytes } from 'node:crypto'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import PgSessionStore from 'dsh-session-postgres'
import ToolsStatic from 'dsh-tools-static'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { run } from '../src/run.ts'
import { recordSession, runBin, tempDir } from './setup.ts'

const URL_ENV = 'DSH_TEST_PROMPT_PG_URL'
const schema = `prompt_${randomBytes(5).toString('hex')}`
// without the harness's agent tool (on by default), as recordSession records: the subject is the diff
const spine = { persona: 'You review code in {{cwd}}.', cwd: '/srv/project', agentTool: false }
const addGrep = (ctx: Context) => {
  ctx.tools.register({ name: 'grep', description: 'grep things.', parameters: { type: 'object', properties: {} }, execute: () => '' })
}

async function sql(text: string) {
  const client = new pg.Client({ connectionString: inject('pgUrl') })
  await client.connect()
  try {
    return await client.query(text)
  } finally {
    await client.end()
  }
}

/** Records the session "one" in PostgreSQL exactly as recordSession records it in a JSONL file. */
async function recordInPostgres() {
  const ctx = new Context()
  const store = await ctx.plugin(PgSessionStore, { url: inject('pgUrl'), schema } as never)
  await ctx.plugin(AgentSpine, { ...spine, sessionStore: 'external' } as never)
  await ctx.plugin(ToolsStatic, { tools: ['read', 'write'].map(name => ({ name, description: `${name} things.`, delayMs: 0 })) } as never)
  const agent = await ctx.agentLoop.createAgent({ id: 'one' })
  await agent.prompt('hi')
  addGrep(ctx)
  await agent.prompt('again')
  const seqs = agent.session.events().filter(event => event.type === 'request/header').map(event => event.seq)
  await store.dispose()
  return seqs
}

let seqs: number[]
beforeAll(async () => {
  process.env[URL_ENV] = inject('pgUrl')
  seqs = await recordInPostgres()
})
afterAll(async () => {
  delete process.env[URL_ENV]
  await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
})

const where = ['--pg-url-env', URL_ENV, '--pg-schema', schema]

describe('dsh-prompt diff on sessions in PostgreSQL', () => {
  it('compares two headers of a stored session through the bin', async () => {
    expect(seqs).toHaveLength(2)
    const dir = await tempDir()
    const { code, stdout, stderr } = await runBin(['diff', `pg:one#${seqs[0]}`, 'pg:one', ...where], dir)
    expect(stderr).toBe('')
    expect(code).toBe(1) // the prefixes differ, like diff(1)
    expect(stdout).toMatch(/^diverge at byte \d+ \(tools\): tool #1: "grep" in b is not in a \(added\); a has "read" there$/m)
    expect(stdout).toContain(`pg:one#${seqs[0]} (PostgreSQL session, request/header seq ${seqs[0]}, turn 1 step 1, reason initial)`)
  })

  it('finds the stored session identical to the same session in a JSONL file', async () => {
    const dir = await tempDir()
    const root = join(dir, 'sessions')
    await mkdir(root)
    const { file } = await recordSession({ root, id: 'one', spine, tools: [{ name: 'read' }, { name: 'write' }], prompts: ['hi', 'again'], between: [() => {}, addGrep] })
    for (const seq of ['', `#${seqs[0]}`]) {
      const result = await run(['diff', `${file}${seq}`, `pg:one${seq}`, '--json', ...where])
      expect(result.stderr).toBe('')
      expect(JSON.parse(result.stdout)).toMatchObject({ identical: true, b: { kind: 'session', event: { line: null } } })
    }
  })

  it.each([
    [['pg:missing'], new RegExp(`^pg:missing: session "missing" does not exist in schema "${schema}" at postgres://dsh_test@127\\.0\\.0\\.1:\\d+/postgres$`)],
    [[`pg:one#999`], /^pg:one: no request\/header event with seq 999; request\/header seqs: \d+, \d+$/],
    [['pg:one#first'], /^pg:one#first: bad seq "first"; write pg:ID#SEQ with SEQ a positive integer$/],
    [['pg:bad.id'], /^pg:bad\.id: bad session id "bad\.id"; write pg:ID with ID 1 to 128 characters/],
    [['pg:one', '--pg-url-env', 'DSH_TEST_UNSET_URL'], /^pg:one: urlEnv names the variable "DSH_TEST_UNSET_URL", which is not set/],
    [['pg:one', '--pg-schema', 'nothing_here'], /^pg:one: schema "nothing_here" at postgres:\/\/dsh_test@127\.0\.0\.1:\d+\/postgres holds no DSH sessions$/],
  ])('fails with one line on %j', async (args, message) => {
    const [input, ...options] = args as string[]
    const result = await run(['diff', input!, 'pg:one', ...where, ...options])
    expect(result.code).toBe(2)
    expect(result.stderr.trimEnd()).toMatch(message)
    expect(result.stderr.split('\n')).toHaveLength(2)
  })

  it('never prints the password, even when the login fails', async () => {
    const url = new URL(inject('pgUrl'))
    url.password = 'not-The-Pa55word'
    process.env.DSH_TEST_PROMPT_BAD_URL = url.href
    try {
      const result = await run(['diff', 'pg:one', 'pg:one', ...where, '--pg-url-env', 'DSH_TEST_PROMPT_BAD_URL'])
      expect(result.code).toBe(2)
      expect(result.stderr).toMatch(/^pg:one: PostgreSQL at postgres:\/\/dsh_test@127\.0\.0\.1:\d+\/postgres refused the login of user "dsh_test": authentication failed/)
      expect(result.stderr).not.toContain('not-The-Pa55word')
    } finally {
      delete process.env.DSH_TEST_PROMPT_BAD_URL
    }
  })
})

describe('dsh-prompt view on a session in PostgreSQL', () => {
  it('writes the page of a stored session, read where --pg-url-env and --pg-schema say', async () => {
    const dir = await tempDir()
    const result = await run(['view', 'pg:one', '--out', join(dir, 'one.html'), '--json', ...where])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const { summary, breaks } = JSON.parse(result.stdout)
    // two turns of one step each; grep joined before the second, so its header changed
    expect(summary).toMatchObject({ requests: 2, turns: 2, headerChanges: 1, toolsAdded: 1 })
    expect(breaks).toBe(1)
  })
})
