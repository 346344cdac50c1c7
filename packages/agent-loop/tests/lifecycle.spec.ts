import { readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { setup, types } from './setup.ts'

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

  // Known regression, tracked in issue 24: since the JSONL writer keeps its file open, a sessions folder removed
  // mid-turn no longer fails the turn in time (the check runs at the turn's fsync), so this passes only by timing.
  it.skip('a persistence failure mid-turn resolves the turn with an error naming the file', async () => {
    const { ctx, root } = await setup()
    await ctx.plugin(slowTool())
    const agent = await ctx.agentLoop.createAgent({ id: 'lost' })
    const errors: string[] = []
    ctx.on('agent/error', (_agent, error) => { errors.push(error.message) })
    const running = agent.prompt('/call slow {}')
    await new Promise((resolve) => setTimeout(resolve, 20))
    await rm(root, { recursive: true, force: true })
    const result = await running
    expect(result.reason).toBe('error')
    expect(result.error).toContain('lost.jsonl')
    expect(errors).toEqual([result.error])
    expect(agent.status).toBe('idle')
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
