import { mkdtemp, readdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import SessionStore from 'dsh-session'
import type { Usage } from 'dsh-core'
import AgentSpine from '../src/index.ts'
import { SCRIPTED_CACHE_FILE } from '../src/plugin.ts'
import { loadWithSessions, toolOrderForwardingCases } from '../src/testing/index.ts'

const load = (config: Record<string, unknown>) => loadWithSessions(AgentSpine, config)

describe('the agent core bundle', () => {
  toolOrderForwardingCases(AgentSpine)

  it('runs a turn on the offline model', async () => {
    const ctx = await load({})
    const agent = await ctx.agentLoop.createAgent()
    expect((await agent.prompt('hi')).text).toBe('echo: hi')
  })

  it('keeps scripted-echo\'s emulated cache beside the JSONL sessions, so a second spine on them starts warm; none without persistence', async () => {
    const persistenceRoot = await mkdtemp(join(tmpdir(), 'dsh-spine-cache-'))
    const persona = 'You answer in one short sentence. '.repeat(20)
    const before = new Context()
    const fiber = await before.plugin(AgentSpine, { persistenceRoot, persona })
    await (await before.agentLoop.createAgent({ id: 's' })).prompt('hi')
    await fiber.dispose()
    expect((await readdir(persistenceRoot)).sort()).toEqual(['s.jsonl', SCRIPTED_CACHE_FILE])
    const usages: Usage[] = []
    const resumed = await (await load({ persistenceRoot, persona })).agentLoop.createAgent({ id: 's' })
    await resumed.prompt('again', { onUpdate: (update) => void (update.type === 'usage' && usages.push(update.usage)) })
    expect(usages[0]!.emulated).toBe(true)
    expect(usages[0]!.cacheReadTokens / usages[0]!.inputTokens).toBeGreaterThan(0.8)

    const memory = await mkdtemp(join(tmpdir(), 'dsh-spine-cache-'))
    await (await (await load({ persistenceRoot: memory, persist: false })).agentLoop.createAgent()).prompt('hi')
    expect((await readdir(memory)).filter((name) => !name.endsWith('.lock'))).toEqual([])
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
