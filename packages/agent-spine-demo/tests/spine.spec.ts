import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import SessionStore from 'dsh-session'
import AgentSpine from '../src/index.ts'

async function load(config: Record<string, unknown>) {
  const ctx = new Context()
  const persistenceRoot = await mkdtemp(join(tmpdir(), 'dsh-spine-'))
  await ctx.plugin(AgentSpine, { persistenceRoot, ...config } as any)
  return ctx
}

describe('the agent core bundle', () => {
  it('keeps an omitted toolOrder absent all the way to SystemPrompt', async () => {
    const ctx = await load({ persona: 'Be brief.' })
    expect('toolOrder' in ctx.systemPrompt.config).toBe(false)
    expect(ctx.systemPrompt.config.persona).toBe('Be brief.')
  })

  it('forwards a configured toolOrder intact', async () => {
    const toolOrder = ['b', TOOL_ORDER_REST, 'a']
    const ctx = await load({ toolOrder })
    expect(ctx.systemPrompt.config.toolOrder).toEqual(toolOrder)
    expect(ctx.systemPrompt.toolOrder).toEqual(toolOrder)
  })

  it('runs a turn on the offline model', async () => {
    const ctx = await load({})
    const agent = await ctx.agentLoop.createAgent()
    expect((await agent.prompt('hi')).text).toBe('echo: hi')
  })

  it('forwards the loop keys', async () => {
    const ctx = await load({ model: 'other', maxSteps: 2, scripted: false, compactAt: 0.6, compactionTimeoutMs: 500 })
    expect(ctx.agentLoop.config).toMatchObject({ model: 'other', maxSteps: 2, compactAt: 0.6, compactionTimeoutMs: 500 })
    expect(ctx.llm.models()).toEqual([])
  })

  it('with sessionStore external, waits for another plugin to provide sessions', async () => {
    const ctx = await load({ sessionStore: 'external' })
    expect(ctx.get('sessions')).toBeUndefined()
    expect(ctx.get('agentLoop')).toBeUndefined()
    const root = await mkdtemp(join(tmpdir(), 'dsh-spine-external-'))
    await ctx.plugin(SessionStore, { persistenceRoot: root, persist: true })
    const agent = await ctx.agentLoop.createAgent({ id: 'x' })
    expect((await agent.prompt('hi')).text).toBe('echo: hi')
    expect(await ctx.sessions.list()).toEqual(['x'])
  })

  it.each([
    [{ sessionStore: 'postgres' }, /sessionStore/],
    [{ toolOrder: [] }, /toolOrder is an empty list/],
    [{ toolOrder: ['a'] }, /rest entry "<unlisted-tools>"/],
    [{ toolOrder: 'a' }, /toolOrder/],
    [{ persona: 5 }, /persona/],
    [{ maxSteps: 0 }, /maxSteps/],
    [{ compactAt: 2 }, /compactAt/],
    [{ persistenceRoot: 3 }, /persistenceRoot/],
    [{ toolTimeoutMs: -5 }, /toolTimeoutMs/],
    [{ scripted: 'yes' }, /scripted/],
  ])('fails to load with %j', async (config, message) => {
    await expect(load(config)).rejects.toThrow(message)
  })
})
