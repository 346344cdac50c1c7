import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import { describe, expect, it, onTestFinished } from 'vitest'
import { PgSessionStore } from '../src/store.ts'
import { startOutage, storedEvents } from '../src/testing/index.ts'
import { freshSchema, pgUrl } from './helpers.ts'

describe('a running process and a database that goes away', () => {
  it('fails the turn in flight, fails turns while the database is away, and works again once it answers', async () => {
    const outage = await startOutage(pgUrl())
    onTestFinished(() => outage.close())
    const schema = freshSchema()
    const ctx = new Context()
    const logs: string[] = []
    ctx.logger.exporter({ export: (message) => { logs.push(`[${message.type}] ${message.name}: ${message.args.join(' ')}`) } })
    const fiber = await ctx.plugin(PgSessionStore, { url: outage.url, schema, connectTimeoutMs: 2000 } as never)
    onTestFinished(() => fiber.dispose())
    let started!: () => void
    const inTool = new Promise<void>((resolve) => { started = resolve })
    let release!: (text: string) => void
    const output = new Promise<string>((resolve) => { release = resolve })
    await ctx.plugin({ name: 'gate', inject: ['tools'], apply: (ctx: Context) => {
      ctx.tools.register({ name: 'slow', description: 'waits', parameters: { type: 'object' }, execute: () => { started(); return output } })
    } } as never, {} as never)
    await ctx.plugin(AgentSpine, { sessionStore: 'external' } as never)
    const agent = await ctx.agentLoop.createAgent({ id: 'a1' })
    expect((await agent.prompt('hi')).reason).toBe('done')

    // the database goes away in the middle of turn 2
    const running = agent.prompt('/call slow {}')
    await inTool
    await agent.session.flushed()
    await outage.cut()
    release('late')
    const failed = await running
    expect(failed.reason).toBe('error')
    expect(failed.error).toMatch(/^session store postgresql: cannot persist session "a1": lost the connection to PostgreSQL at postgres:\/\/dsh_test@127\.0\.0\.1:\d+\/postgres/)

    // still away: the turn fails with the connection's one line and logs nothing
    const away = await agent.prompt('anyone?')
    expect(away.reason).toBe('error')
    expect(away.error).toMatch(/^cannot connect to PostgreSQL at postgres:\/\/dsh_test@127\.0\.0\.1:\d+\/postgres: connection refused/)

    // back: the next turn reopens the session, the cut-off turn is balanced, and the turn is stored
    await outage.restore()
    const back = await agent.prompt('back again')
    expect(back).toMatchObject({ reason: 'done', text: 'echo: back again' })
    const stored = await storedEvents(pgUrl(), schema, 'a1')
    expect(stored.map((event) => event.seq)).toEqual(stored.map((_, index) => index + 1))
    const ends = stored.filter((event) => event.type === 'turn/end').map((event) => [event.data.turn, event.data.reason])
    expect(back.turn).toBe(3)
    expect(ends).toEqual([[1, 'done'], [2, 'error'], [3, 'done']])
    expect(stored.filter((event) => event.type === 'turn/start').length).toBe(ends.length)
    expect(stored.filter((event) => event.type === 'step/start').length).toBe(stored.filter((event) => event.type === 'step/end').length)
    expect(stored.map((event) => event.type)).toEqual(agent.session.events().map((event) => event.type))
    // the failure was reported to the caller (the turn); the store logged no raw error line of its own
    expect(logs.filter((line) => line.startsWith('[error]')).join('\n')).toBe('')
  })
})
