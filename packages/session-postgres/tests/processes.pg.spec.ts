import { type ChildProcess, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import { describe, expect, it, onTestFinished } from 'vitest'
import { PgSessionStore } from '../src/store.ts'
import { freshSchema, pgUrl, sql } from './helpers.ts'

const writer = fileURLToPath(new URL('./fixtures/writer.ts', import.meta.url))

/** Starts the writer process; `lines` yields its stdout lines. */
function start(...args: string[]) {
  const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', writer, ...args], {
    env: { ...process.env, DSH_TEST_PG_URL: pgUrl() },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  onTestFinished(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]()
  return { child, next: async () => (await lines.next()).value as string | undefined }
}

function exited(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise(resolve => child.once('exit', resolve))
}

describe('two processes on one database', () => {
  it('A writes and exits, B resumes and continues, C is refused with BUSY while B holds it', async () => {
    const schema = freshSchema()
    const a = start('write', schema, 'shared', '2')
    expect(await a.next()).toBe('wrote 26')
    expect(await exited(a.child)).toBe(0)

    const b = start('resume', schema, 'shared', '1')
    expect(await b.next()).toBe('wrote 39')
    expect(await b.next()).toBe('holding')

    const c = start('try', schema, 'shared')
    expect(await c.next()).toBe('BUSY')
    expect(await exited(c.child)).toBe(0)

    b.child.stdin!.end()
    expect(await exited(b.child)).toBe(0)
    const d = start('try', schema, 'shared')
    expect(await d.next()).toBe('opened')
    const { rows } = await sql(`SELECT seq FROM "${schema}".events WHERE session_id = 'shared' ORDER BY seq`)
    expect(rows.map(row => row.seq)).toEqual(Array.from({ length: 39 }, (_, i) => i + 1))
  })

  it.each([1, 2, 3])('kill -9 of the writer mid-turn loses nothing acknowledged, and the reopened log is balanced (run %i)', async (run) => {
    const schema = freshSchema()
    const victim = start('crash', schema, 'crashy')
    let acked = 0
    for (let i = 0; i < 5 + run * 3; i++) acked = Number((await victim.next())!.split(' ')[1])
    // Wait a moment into the next turn, so the kill lands mid-turn more often than not.
    await new Promise(resolve => setTimeout(resolve, run * 3))
    victim.child.kill('SIGKILL')
    await exited(victim.child)

    const ctx = new Context()
    const fiber = await ctx.plugin(PgSessionStore, { url: pgUrl(), schema } as never)
    onTestFinished(() => fiber.dispose())
    await ctx.plugin(AgentSpine, { sessionStore: 'external' } as never)
    // The dead writer's lock went with its connection: this process can take the session at once.
    const agent = await ctx.agentLoop.createAgent({ id: 'crashy' })
    await agent.session.flushed()
    const events = agent.session.events()
    expect(events.length).toBeGreaterThanOrEqual(acked)
    const count = (type: string) => events.filter(event => event.type === type).length
    expect(count('turn/start')).toBe(count('turn/end'))
    expect(count('step/start')).toBe(count('step/end'))
    expect((await agent.prompt('after the crash')).reason).toBe('done')
  })
})
