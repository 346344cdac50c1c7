import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Agent } from 'dsh-agent-loop'
import { PROFILES, cachePolicy, type ProviderId } from 'dsh-llm'
import { type PromptCacheBreak } from '../src/index.ts'
import { routeCaching } from '../src/route-caching.ts'
import { ColdWatch } from '../src/cold.ts'
import { readLog, setup } from './setup.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose()
  vi.useRealTimers()
})

/** The spine on the test adapter, whose models resolve to `profile` (and `cacheTtl`). */
async function on(profile: ProviderId, cacheTtl?: string) {
  const spine = await setup({ cachePolicy: (model) => cachePolicy(PROFILES[profile], model, cacheTtl) })
  disposers.push(spine.dispose)
  return spine
}

/** Two turns whose responses read `reads` (the adapter counts 20,000 prompt tokens each); the breaks found. */
async function twoTurns(profile: ProviderId, reads: [number, number]): Promise<PromptCacheBreak[]> {
  const { ctx, model, root } = await on(profile)
  model.queue({ read: reads[0] }, { read: reads[1] })
  const agent = await ctx.agentLoop.createAgent({ id: profile })
  await agent.prompt('one')
  await agent.prompt('two')
  const logged = (await readLog(root, agent.id)).filter((event) => event.type === 'prompt-cache/break').map((event) => event.data)
  expect(logged).toEqual([...ctx.promptCache.breaks(profile)])
  return logged as unknown as PromptCacheBreak[]
}

describe('breaks explained with the route\'s profile', () => {
  it('Anthropic: with the planner\'s breakpoints a read of nothing is provider_miss, though the previous read was zero too', async () => {
    const [found, ...rest] = await twoTurns('anthropic', [0, 0])
    expect(rest).toEqual([])
    // the planner marked the previous request's newest message: all of its 20,000 prompt tokens were on offer
    expect(found).toMatchObject({ turn: 2, reason: 'provider_miss', profile: 'anthropic', previousCacheReadTokens: 0, currentCacheReadTokens: 0, predictedCacheReadTokens: 20_000 })
  })

  it('DashScope: the same from the markers on the system message and the newest message', async () => {
    expect((await twoTurns('dashscope', [0, 0]))[0]).toMatchObject({ reason: 'provider_miss', profile: 'dashscope', predictedCacheReadTokens: 20_000 })
    expect(await twoTurns('dashscope', [0, 20_000])).toEqual([])
  })

  it('OpenAI: a miss on an unchanged prefix within the TTL is provider_miss, with the prediction', async () => {
    const [found] = await twoTurns('openai', [19_000, 0])
    expect(found).toMatchObject({ reason: 'provider_miss', profile: 'openai', predictedCacheReadTokens: 19_968 })
  })

  it('DeepSeek (no TTL bound) names a miss provider_miss; a generic route keeps the specification\'s reason', async () => {
    expect((await twoTurns('deepseek', [19_000, 0]))[0]).toMatchObject({ reason: 'provider_miss', profile: 'deepseek' })
    const [generic] = await twoTurns('generic', [19_000, 0])
    expect(generic!.reason).toBe('likely_provider_ttl_or_eviction')
    expect(generic).not.toHaveProperty('profile')
  })

  it('reads that match the prediction are not a break', async () => {
    expect(await twoTurns('openai', [0, 19_968])).toEqual([])
    expect(await twoTurns('deepseek', [0, 19_968])).toEqual([])
  })
})

describe('routeCaching', () => {
  it('maps each profile\'s facts to rules, the entry\'s cacheTtl included', async () => {
    const { ctx } = await on('anthropic', '1h')
    expect(ctx.promptCache.caching('cache-a').rules).toEqual({ profile: 'anthropic', mechanism: 'breakpoints', unitTokens: 1, minimumTokens: 1024, ttlMs: 3_600_000, lookbackBlocks: 20 })
    const policy = (profile: ProviderId, model = 'm') => ({ cachePolicy: () => cachePolicy(PROFILES[profile], model), cacheMarks: () => [] })
    expect(routeCaching(policy('anthropic', 'claude-haiku-4-5'), 'x').rules).toMatchObject({ minimumTokens: 4096, ttlMs: 300_000 })
    expect(routeCaching(policy('openai'), 'm').rules).toEqual({ profile: 'openai', mechanism: 'automatic', unitTokens: 128, minimumTokens: 1024, ttlMs: 600_000 })
    expect(routeCaching(policy('deepseek'), 'm').rules).toEqual({ profile: 'deepseek', mechanism: 'automatic', unitTokens: 64, minimumTokens: 64 })
    expect(routeCaching(policy('dashscope'), 'm').rules).toMatchObject({ mechanism: 'breakpoints', ttlMs: 300_000 })
    expect(routeCaching(policy('generic'), 'm')).toEqual({})
    expect(routeCaching({ cachePolicy: () => { throw new Error('unknown model') }, cacheMarks: () => [] }, 'nope')).toEqual({})
  })
})

describe('the cold-cache timer', () => {
  it('fires at the profile\'s TTL after the request went out, only for an idle agent', () => {
    vi.useFakeTimers()
    const fired: string[] = []
    const watch = new ColdWatch((agent) => fired.push(agent.id))
    const idle = { id: 'idle', status: 'idle' } as Agent
    const busy = { id: 'busy', status: 'running' } as Agent
    const info = { model: 'claude-sonnet-4-5', ttlMs: 300_000, promptTokens: 1 }
    watch.arm(idle, info, Date.now())
    watch.arm(busy, info, Date.now())
    vi.advanceTimersByTime(299_999)
    expect(fired).toEqual([])
    vi.advanceTimersByTime(2)
    expect(fired).toEqual(['idle'])
    watch.dispose()
  })
})
