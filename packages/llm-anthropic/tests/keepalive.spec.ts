import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import { ManualClock, startEmulator } from 'dsh-llm-testing/emulator'
import { afterEach, describe, expect, it } from 'vitest'
import AnthropicProvider from '../src/index.ts'
import { fakeKey } from './setup.ts'

// a model on the anthropic profile with a listed price: 5-minute lifetime refreshed on a hit, 1,024-token minimum
const MODEL = 'claude-opus-5'
const MINUTE = 60_000
// long enough that the prefix passes the 1,024-token minimum
const PERSONA = 'You review pull requests for the payments service and explain each finding with the line it is on. '.repeat(60)

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

/** The real spine and the real Anthropic adapter against the emulator's Anthropic route, all on one virtual clock. */
async function start(keepalive?: Record<string, unknown>, entry: Record<string, unknown> = {}) {
  const clock = new ManualClock()
  const emulator = await startEmulator([MODEL], { now: clock.now })
  const key = fakeKey()
  const ctx = new Context()
  await ctx.plugin(AgentSpine, { scripted: false, model: MODEL, persona: PERSONA, persistenceRoot: await mkdtemp(join(tmpdir(), 'dsh-keepalive-')) } as any)
  await ctx.plugin(AnthropicProvider, {
    baseURL: `${emulator.origin}/anthropic`, apiKeyEnv: key.name, provider: 'anthropic', models: [{ id: MODEL, ...entry, ...keepalive && { keepalive } }],
  } as any)
  ctx.agentLoop.keepalive.useClock(clock)
  const agent = await ctx.agentLoop.createAgent({ id: 'keep' })
  closers.push(async () => {
    await ctx.agentLoop.removeAgent('keep')
    await emulator.close()
    key.cleanup()
  })
  return { clock, emulator, agent }
}

const pings = (agent: { session: { events(): readonly { type: string; data: any }[] } }) =>
  agent.session.events().filter((event) => event.type === 'keepalive/ping').map((event) => event.data)

describe('the keepalive, through the loop, the Anthropic adapter and the emulator', () => {
  it('keeps the prefix warm across a wait just past the lifetime: one ping, a full read after it, a logged cost', async () => {
    const { clock, emulator, agent } = await start({ maxSpend: 1 })
    expect((await agent.prompt('first')).reason).toBe('done')
    await clock.advance(6 * MINUTE)
    expect((await agent.prompt('second')).reason).toBe('done')
    expect(emulator.problems).toEqual([])
    const [first, ping, second] = emulator.ledger
    expect(emulator.ledger).toHaveLength(3)
    expect(first!.promptTokens).toBeGreaterThan(1024)
    // the ping repeats the first request: it reads all of it and writes nothing
    expect(ping!.cachedTokens).toBe(first!.writtenTokens)
    expect(ping!.writtenTokens).toBe(0)
    expect(second!.cachedTokens).toBe(first!.writtenTokens)
    const logged = pings(agent)
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatchObject({ turn: 1, step: 1, idleMs: 4.5 * MINUTE, ttlMs: 5 * MINUTE, usage: { cacheReadTokens: first!.writtenTokens, cacheWriteTokens: 0 } })
    // priced by dsh-llm's cost record: the prefix read at $0.50, the token after the last breakpoint at $5 and
    // the answer at $25 per million
    const tail = first!.promptTokens - first!.writtenTokens
    expect(logged[0].cost).toBeCloseTo((first!.writtenTokens * 0.5 + tail * 5 + logged[0].usage.outputTokens * 25) / 1e6, 12)
    expect(logged[0].saving).toBeGreaterThan(logged[0].cost)
    // the second request came after the lifetime would have ended: what the ping saved is logged
    const saved = agent.session.events().filter((event) => event.type === 'keepalive/saved').map((event) => event.data)
    expect(saved).toEqual([{ turn: 2, step: 1, pings: 1, waitMs: 6 * MINUTE, ttlMs: 5 * MINUTE, readTokens: first!.writtenTokens, saving: expect.any(Number) }])
    // $6.25 a write over $0.50 a read, per million tokens
    expect(saved[0].saving).toBeCloseTo(first!.writtenTokens * 5.75 / 1e6, 12)
    // the wire: the same body but max_tokens 1
    const bodies = emulator.received.map(({ body }) => JSON.parse(body))
    expect(bodies[1].max_tokens).toBe(1)
    expect({ ...bodies[1], max_tokens: 0 }).toEqual({ ...bodies[0], max_tokens: 0 })
  }, 30_000)

  it('without a keepalive entry the same wait writes the prefix again', async () => {
    const { clock, emulator, agent } = await start()
    await agent.prompt('first')
    await clock.advance(6 * MINUTE)
    await agent.prompt('second')
    expect(emulator.ledger).toHaveLength(2)
    expect(emulator.ledger[1]!.cachedTokens).toBe(0)
    expect(pings(agent)).toEqual([])
  }, 30_000)

  it('sends nothing after its idle bound, however long the session then waits', async () => {
    const { clock, emulator, agent } = await start({ idleLimitMs: 10 * MINUTE })
    await agent.prompt('first')
    await clock.advance(3 * 60 * MINUTE)
    // pings at 4.5 and 9 minutes; the one due at 13.5 is past the bound
    expect(pings(agent).map((ping) => ping.idleMs)).toEqual([4.5 * MINUTE, 9 * MINUTE])
    expect(emulator.ledger).toHaveLength(3)
  }, 30_000)

  it('stops at the session\'s spend cap', async () => {
    const { clock, emulator, agent } = await start({ maxSpend: 0.000001 })
    await agent.prompt('first')
    await clock.advance(20 * MINUTE)
    expect(pings(agent)).toEqual([])
    expect(emulator.ledger).toHaveLength(1)
  }, 30_000)

  it('ends the wait when the session sends a request of its own', async () => {
    const { clock, emulator, agent } = await start({})
    await agent.prompt('first')
    await clock.advance(4 * MINUTE)
    await agent.prompt('second')
    await clock.advance(4 * MINUTE)
    // no ping yet: the second request refreshed the prefix at minute 4, its ping is due at 8.5
    expect(pings(agent)).toEqual([])
    await clock.advance(MINUTE)
    expect(pings(agent).map((ping) => [ping.turn, ping.idleMs])).toEqual([[2, 4.5 * MINUTE]])
    expect(agent.session.events().some((event) => event.type === 'keepalive/saved')).toBe(false)
    expect(emulator.ledger).toHaveLength(3)
  }, 30_000)

  it('compacts while warm instead of pinging when the session nears its compaction threshold', async () => {
    // the first request (about 1,530 tokens with its answer) is past 90 % of compactAt 0.8 of a 2,000-token window
    const { clock, emulator, agent } = await start({}, { contextWindow: 2000 })
    await agent.prompt('first')
    await clock.advance(6 * MINUTE)
    expect(emulator.problems).toEqual([])
    const [first, compaction] = emulator.ledger
    expect(emulator.ledger).toHaveLength(2)
    // the compaction request rides the warm prefix: it reads what the first request wrote
    expect(compaction).toMatchObject({ compaction: true, cachedTokens: first!.writtenTokens })
    const events = agent.session.events()
    expect(events.find((event) => event.type === 'context/compaction')?.data).toMatchObject({ reason: 'auto' })
    expect(pings(agent)).toEqual([{ turn: 1, step: 1, idleMs: 4.5 * MINUTE, ttlMs: 5 * MINUTE, compacted: true }])
  }, 30_000)

  it('pings instead of compacting with compactWhenWarm: false', async () => {
    const { clock, emulator, agent } = await start({ compactWhenWarm: false }, { contextWindow: 2000 })
    await agent.prompt('first')
    await clock.advance(6 * MINUTE)
    expect(emulator.ledger.map((entry) => entry.compaction)).toEqual([false, false])
    expect(pings(agent)[0]).toMatchObject({ usage: { cacheWriteTokens: 0 } })
  }, 30_000)
})
