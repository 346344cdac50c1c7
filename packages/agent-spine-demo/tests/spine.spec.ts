import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import SessionStore from 'dsh-session'
import AgentSpine from '../src/index.ts'
import { loadWithSessions, toolOrderForwardingCases } from '../src/testing/index.ts'

const load = (config: Record<string, unknown>) => loadWithSessions(AgentSpine, config)

describe('the agent core bundle', () => {
  toolOrderForwardingCases(AgentSpine)

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

  it('forwards durability to the session store, turn when omitted', async () => {
    expect((await load({})).sessions.durability).toBe('turn')
    expect((await load({ durability: 'event' })).sessions.durability).toBe('event')
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
    [{ durability: 'always' }, /durability/],
  ])('fails to load with %j', async (config, message) => {
    await expect(load(config)).rejects.toThrow(message)
  })
})
