import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setup, types } from './setup.ts'
import { gatedTool } from './gated-tool.ts'

const slowTool = (name = 'slow', ms = 80) => ({
  name: 'slow-plugin', inject: ['tools'], apply: (ctx: any) => {
    ctx.tools.register({
      name, description: 'waits', parameters: { type: 'object' },
      execute: () => new Promise((resolve) => setTimeout(() => resolve('late'), ms)),
    })
  },
})

describe('agent lifecycle', () => {
  it('refuses a second agent with the same id even when both are created at once', async () => {
    const { ctx } = await setup()
    const results = await Promise.allSettled([ctx.agentLoop.createAgent({ id: 'twin' }), ctx.agentLoop.createAgent({ id: 'twin' })])
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected'])
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
    expect(rejected.reason.code).toBe('BUSY')
  })

  it('removeAgent resolves only after the running turn is closed on disk', async () => {
    const { ctx, root } = await setup()
    await ctx.plugin(slowTool())
    const agent = await ctx.agentLoop.createAgent({ id: 'gone' })
    const running = agent.prompt('/call slow {}')
    await new Promise((resolve) => setTimeout(resolve, 20))
    await ctx.agentLoop.removeAgent('gone')
    const lines = (await readFile(join(root, 'gone.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line).type)
    expect(lines.at(-1)).toBe('turn/end')
    expect((await running).reason).toBe('cancelled')
  })

  it('once the loop is being disposed, a prompt starts no turn: it resolves cancelled and logs nothing', async () => {
    const { ctx, dispose } = await setup()
    await ctx.plugin(slowTool())
    const agent = await ctx.agentLoop.createAgent({ id: 'stopping' })
    const running = agent.prompt('/call slow {}')
    await new Promise((resolve) => setTimeout(resolve, 20))
    const disposing = dispose()
    expect((await running).reason).toBe('cancelled')
    // a front door's next line, read before it heard of the shutdown
    const logged = agent.session.events().length
    expect(await agent.prompt('a line read before the signal')).toEqual({
      turn: 1, reason: 'cancelled', text: '', toolCalls: [], error: 'the agent loop is shutting down',
    })
    await disposing
    expect(agent.session.events()).toHaveLength(logged)
    expect(types(agent.session.events()).filter((type) => type === 'turn/start')).toHaveLength(1)
  })
})

describe('resuming a session whose last turn was cut off', () => {
  it('closes the open turn on load so the next turn is numbered after it and every tool call has a result', async () => {
    const root = await (await import('./setup.ts')).tempRoot()
    const { writeFile } = await import('node:fs/promises')
    const time = new Date(0).toISOString()
    const tools = [{ name: 'slow', description: 'waits', parameters: { type: 'object' } }]
    const lines = [
      ['turn/start', { turn: 1 }],
      ['user/message', { turn: 1, text: '/call slow {}' }],
      ['step/start', { turn: 1, step: 1 }],
      ['request/header', { turn: 1, step: 1, reason: 'initial', header: { model: 'scripted-echo', system: 's', tools } }],
      ['assistant/message', { turn: 1, step: 1, text: '', toolCalls: [{ id: 'c1', name: 'slow', arguments: {} }] }],
      ['tool/call', { turn: 1, step: 1, id: 'c1', name: 'slow', arguments: {} }],
    ].map(([type, data], index) => JSON.stringify({ seq: index + 1, time, type, data }) + '\n')
    await writeFile(join(root, 'cut.jsonl'), lines.join(''))
    const { ctx } = await setup({ root })
    const agent = await ctx.agentLoop.createAgent({ id: 'cut' })
    const result = await agent.prompt('again')
    expect(result.turn).toBe(2)
    const events = agent.session.events()
    const starts = events.filter((e) => e.type === 'turn/start').length
    const ends = events.filter((e) => e.type === 'turn/end').length
    expect(ends).toBe(starts)
    expect(events.filter((e) => e.type === 'step/end').length).toBe(events.filter((e) => e.type === 'step/start').length)
    const messages = [...agent.lastRequest!.messages]
    const assistant = messages.findIndex((m) => m.role === 'assistant')
    expect(messages[assistant + 1]).toMatchObject({ role: 'tool', id: 'c1', isError: true })
    const disk = (await readFile(join(root, 'cut.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
    expect(disk.map((e) => e.type)).toEqual(types(events))
  })
})

describe('sessions are not shared', () => {
  it('refuses a second agent on a session another agent uses', async () => {
    const { ctx } = await setup()
    await ctx.agentLoop.createAgent({ id: 'a', sessionId: 'shared' })
    await expect(ctx.agentLoop.createAgent({ id: 'b', sessionId: 'shared' })).rejects.toMatchObject({
      code: 'BUSY', message: 'session "shared" is already used by agent "a"',
    })
  })
})

// With `event` and `none` a write to a removed log fails at once: what the store refused never reaches the front door.
describe.each(['event', 'none'] as const)('updates after a refused write (durability %s)', (durability) => {
  it('onUpdate never hears the tool result the store refused; it hears the turn end carrying the failure', async () => {
    const { ctx, root } = await setup({ durability })
    const gate = gatedTool()
    await ctx.plugin(gate.plugin)
    const agent = await ctx.agentLoop.createAgent({ id: 'lost' })
    const heard: string[] = []
    const broadcast: string[] = []
    ctx.on('agent/update', (_agent, update) => { broadcast.push(update.type) })
    const running = agent.prompt('/call slow {}', { onUpdate: (update) => { heard.push(update.type) } })
    await gate.started
    await agent.session.flushed()
    await rm(root, { recursive: true })
    gate.release('late')
    const result = await running
    expect(result.reason).toBe('error')
    expect(heard.filter((type) => type !== 'usage')).toEqual(['tool-call', 'turn-end'])
    // plugins in this process hear what happened, stored or not
    expect(broadcast).toContain('tool-result')
  })
})

// The writer keeps its log open, so a removed folder is only noticed at the next check (each write with
// `event` and `none`, the turn's fsync with `turn`). The tool holds the turn until the log is on disk and
// the folder is gone: no timing decides the outcome.
describe.each(['turn', 'event', 'none'] as const)('a sessions folder removed mid-turn (durability %s)', (durability) => {
  it('fails the turn naming the log, and the next turn reopens the session from what the store holds', async () => {
    const { ctx, root } = await setup({ durability })
    const gate = gatedTool()
    await ctx.plugin(gate.plugin)
    const agent = await ctx.agentLoop.createAgent({ id: 'lost' })
    const errors: string[] = []
    ctx.on('agent/error', (_agent, error) => { errors.push(error.message) })
    const running = agent.prompt('/call slow {}')
    await gate.started
    await agent.session.flushed()
    const log = join(root, 'lost.jsonl')
    const backup = await readFile(log)
    await rm(root, { recursive: true })
    gate.release('late')
    const result = await running
    expect(result.reason).toBe('error')
    expect(result.error).toContain(`cannot append to ${log}: the file was deleted while the session was open`)
    expect(errors).toEqual([result.error])
    expect(agent.status).toBe('idle')

    // the folder comes back (restored from a backup taken mid-turn): the next turn works on the restored log
    await mkdir(root)
    await writeFile(log, backup)
    const next = await agent.prompt('again')
    expect(next).toMatchObject({ reason: 'done', turn: 2, text: 'echo: again' })
    const disk = (await readFile(log, 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
    expect(disk.map((e) => e.type)).toEqual(types(agent.session.events()))
    expect(disk.filter((e) => e.type === 'turn/end').map((e) => [e.data.turn, e.data.reason])).toEqual([[1, 'error'], [2, 'done']])
    expect(disk.filter((e) => e.type === 'tool/result').map((e) => e.data.isError)).toEqual([true])
  })

  it('a session whose log stays gone fails each later turn with one line naming the log, and other sessions go on', async () => {
    const { ctx, root } = await setup({ durability })
    const gate = gatedTool()
    await ctx.plugin(gate.plugin)
    const agent = await ctx.agentLoop.createAgent({ id: 'lost' })
    const running = agent.prompt('/call slow {}')
    await gate.started
    await agent.session.flushed()
    await rm(root, { recursive: true })
    gate.release('late')
    expect((await running).reason).toBe('error')
    const next = await agent.prompt('again')
    expect(next.reason).toBe('error')
    expect(next.error).toBe(`session "lost" has no log at ${join(root, 'lost.jsonl')}`)
    const other = await ctx.agentLoop.createAgent({ id: 'other' })
    expect(await other.prompt('hi')).toMatchObject({ reason: 'done', text: 'echo: hi' })
    expect((await readFile(join(root, 'other.jsonl'), 'utf8')).trim().split('\n').length).toBe(other.session.lastSeq)
  })
})
