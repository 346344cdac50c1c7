import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { rebuildLastRequest } from '../src/index.ts'
import { setup, tempRoot, toolPlugin, types } from './setup.ts'

describe('persistence and resume', () => {
  it('writes every event to JSONL before prompt() resolves', async () => {
    const { ctx, root } = await setup()
    const agent = await ctx.agentLoop.createAgent({ id: 's1' })
    await agent.prompt('hello')
    const lines = (await readFile(join(root, 's1.jsonl'), 'utf8')).trim().split('\n').map((line) => JSON.parse(line))
    expect(lines.map((line) => line.type)).toEqual(types(agent.session.events()))
    expect(lines.map((line) => line.seq)).toEqual(lines.map((_, index) => index + 1))
  })

  it('resumes a session in a new process: turns continue and a changed header is logged as resume', async () => {
    const root = await tempRoot()
    const first = await setup({ root, persona: 'Persona one.' })
    await first.ctx.plugin(toolPlugin('tools-a', ['alpha']))
    const agent = await first.ctx.agentLoop.createAgent({ id: 'kept' })
    await agent.prompt('before restart')
    await first.dispose()
    const second = await setup({ root, persona: 'Persona two.' })
    await second.ctx.plugin(toolPlugin('tools-a', ['alpha']))
    const resumed = await second.ctx.agentLoop.createAgent({ id: 'kept' })
    expect(resumed.session.resumed).toBe(true)
    const result = await resumed.prompt('after restart')
    expect(result.turn).toBe(2)
    const headers = resumed.session.events().filter((e) => e.type === 'request/header')
    expect(headers.map((e: any) => e.data.reason)).toEqual(['initial', 'resume'])
    const messages = [...resumed.session.messages()].filter((m) => m.role === 'user').map((m: any) => m.text)
    expect(messages).toEqual(['before restart', 'after restart'])
    expect(rebuildLastRequest(resumed.session.events())?.system).toContain('Persona two.')
  })

  it('keeps an unchanged header across a restart without logging it again', async () => {
    const root = await tempRoot()
    const first = await setup({ root })
    await (await first.ctx.agentLoop.createAgent({ id: 'same' })).prompt('one')
    await first.dispose()
    const second = await setup({ root })
    const agent = await second.ctx.agentLoop.createAgent({ id: 'same' })
    await agent.prompt('two')
    expect(agent.session.events().filter((e) => e.type === 'request/header')).toHaveLength(1)
  })
})
