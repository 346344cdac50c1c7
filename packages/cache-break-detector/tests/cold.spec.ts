import { afterEach, describe, expect, it } from 'vitest'
import type { Agent } from 'dsh-agent-loop'
import { coldCacheNotice } from '../src/index.ts'
import type { ColdCache } from '../src/cold.ts'
import { setup, sleep } from './setup.ts'

const disposers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const dispose of disposers.splice(0)) await dispose()
})

async function coldSetup(detector: Record<string, unknown>) {
  const spine = await setup({ detector })
  disposers.push(spine.dispose)
  const cold: { agent: Agent; info: ColdCache; at: number }[] = []
  spine.ctx.on('prompt-cache/cold', (agent, info) => { cold.push({ agent, info, at: Date.now() }) })
  return { ...spine, cold }
}

describe('prompt-cache/cold', () => {
  it('is emitted once when an idle agent passes the TTL after its last request, with the figures', async () => {
    const { ctx, cold } = await coldSetup({ ttlMs: 800 })
    const agent = await ctx.agentLoop.createAgent({ id: 'idle' })
    const sent = Date.now()
    await agent.prompt('hello')
    for (const deadline = Date.now() + 5000; !cold.length && Date.now() < deadline;) await sleep(50)
    await sleep(300)
    expect(cold).toHaveLength(1)
    expect(cold[0]!.agent).toBe(agent)
    expect(cold[0]!.info).toMatchObject({ model: 'cache-a', ttlMs: 800, promptTokens: 20_000 })
    expect(cold[0]!.info.idleMs).toBeGreaterThanOrEqual(800)
    expect(cold[0]!.at - sent).toBeGreaterThanOrEqual(800)
  })

  it('is re-armed by each request: a session that keeps talking inside the TTL never goes cold', async () => {
    const { ctx, cold } = await coldSetup({ ttlMs: 600 })
    const agent = await ctx.agentLoop.createAgent({ id: 'busy' })
    // four turns 150 ms apart span more than the TTL, each inside the TTL of the one before
    for (let turn = 0; turn < 4; turn++) {
      await agent.prompt(`turn ${turn}`)
      await sleep(150)
    }
    expect(cold).toEqual([])
    await sleep(900)
    expect(cold).toHaveLength(1)
  })

  it('starts the lifetime again at a keepalive ping that read the prefix', async () => {
    const { ctx, cold } = await coldSetup({ ttlMs: 600 })
    const agent = await ctx.agentLoop.createAgent({ id: 'kept' })
    await agent.prompt('hello')
    await sleep(400)
    const pinged = Date.now()
    ctx.emit('keepalive/ping', agent, { turn: 1, step: 1, idleMs: 400, ttlMs: 600, usage: { inputTokens: 20_000, outputTokens: 1, cacheReadTokens: 20_000, cacheWriteTokens: 0 } })
    await sleep(400)
    // past the lifetime of the request, inside the one the ping started
    expect(cold).toEqual([])
    for (const deadline = Date.now() + 5000; !cold.length && Date.now() < deadline;) await sleep(50)
    expect(cold).toHaveLength(1)
    expect(cold[0]!.at - pinged).toBeGreaterThanOrEqual(600)
  })

  it('is not emitted with coldNotice: false, nor for a route whose profile states no TTL', async () => {
    const off = await coldSetup({ ttlMs: 100, coldNotice: false })
    await (await off.ctx.agentLoop.createAgent({ id: 'off' })).prompt('hello')
    const unknown = await coldSetup({})
    await (await unknown.ctx.agentLoop.createAgent({ id: 'unknown' })).prompt('hello')
    await sleep(300)
    expect(off.cold).toEqual([])
    expect(unknown.cold).toEqual([])
  })

  it('says so in one line, in English or Chinese', () => {
    const info: ColdCache = { model: 'claude-sonnet-4-5', ttlMs: 300_000, idleMs: 312_000, promptTokens: 41_250 }
    expect(coldCacheNotice(info)).toBe("Prompt cache cold: idle 5.2 min, past claude-sonnet-4-5's 5 min cache TTL; the next turn re-sends about 41,250 tokens uncached")
    expect(coldCacheNotice(info, 'zh')).toBe('提示缓存已过期：空闲 5.2 分钟，超过 claude-sonnet-4-5 的缓存有效期（5 分钟）；下一轮将不经缓存重新发送约 41,250 个 token')
  })
})
