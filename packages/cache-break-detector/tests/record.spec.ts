import { afterEach, describe, expect, it } from 'vitest'
import { PERSONA, readLog, requestBytes, setup, toolPlugin, type Reply } from './setup.ts'

type Spine = Awaited<ReturnType<typeof setup>>
const spines: Spine[] = []
afterEach(async () => { for (const spine of spines.splice(0)) await spine.dispose() })

/**
 * Two turns on agent `a`: a tool round trip, then a plain answer after tool `beta` was added — the
 * second turn's first step drops its cache reads. Returns the spine and the agent.
 */
async function scenario(options: Parameters<typeof setup>[0] = {}) {
  const spine = await setup(options)
  spines.push(spine)
  await spine.plug(toolPlugin('alpha'))
  const agent = await spine.ctx.agentLoop.createAgent({ id: 'a' })
  const first: Reply[] = [{ read: 0, write: 7000, toolCalls: [{ id: 'c1', name: 'alpha', arguments: { text: 'x' } }] }, { read: 7000 }]
  spine.model.queue(...first)
  await agent.prompt('use alpha')
  await spine.plug(toolPlugin('beta'))
  spine.model.queue({ read: 0, write: 7200 })
  await agent.prompt('again')
  await agent.session.flushed()
  return { ...spine, agent }
}

describe('a break', () => {
  it('is appended to the agent session, persisted as JSONL, and emitted live with the same data', async () => {
    const { agent, live, root } = await scenario()
    expect(live).toHaveLength(1)
    expect(live[0]!.agent).toBe(agent)
    const info = live[0]!.info
    expect(info).toMatchObject({
      turn: 2, step: 1, reason: 'tools_schema_changed', addedTools: ['beta'], changedToolNames: ['beta'],
      previousCacheReadTokens: 7000, currentCacheReadTokens: 0, currentCacheWriteTokens: 7200,
    })
    const logged = agent.session.events().filter((event) => event.type === 'prompt-cache/break')
    expect(logged.map((event) => event.data)).toEqual([info])
    const persisted = (await readLog(root, 'a')).filter((event) => event.type === 'prompt-cache/break')
    expect(persisted.map((event) => event.data)).toEqual([info])
    // Logged right after the response it is about, before the step ends.
    const types = agent.session.events().map((event) => event.type)
    const at = types.indexOf('prompt-cache/break')
    expect(types.slice(at - 1, at + 2)).toEqual(['assistant/message', 'prompt-cache/break', 'step/end'])
  })

  it('is not reported for the fall in cache reads right after a compaction', async () => {
    const spine = await setup()
    spines.push(spine)
    const agent = await spine.ctx.agentLoop.createAgent({ id: 'a' })
    spine.model.queue({ read: 5000 }, { read: 5000 }, { read: 2000 }, { read: 0 })
    await agent.prompt('one')
    expect(await agent.compact()).toMatchObject({ ok: true })
    await agent.prompt('two')
    expect(spine.live).toEqual([])
    // Later falls are breaks again.
    await agent.prompt('three')
    expect(spine.live.map(({ info }) => info.reason)).toEqual(['likely_provider_ttl_or_eviction'])
  })

  it('is listed by ctx.promptCache.breaks(agentId)', async () => {
    const { ctx, live } = await scenario()
    expect(ctx.promptCache.breaks('a')).toEqual([live[0]!.info])
    expect(ctx.promptCache.breaks('nobody')).toEqual([])
  })

  it('survives a throwing prompt-cache/break listener without failing the turn', async () => {
    const spine = await setup()
    spines.push(spine)
    spine.ctx.on('prompt-cache/break', () => { throw new Error('listener broke') })
    const agent = await spine.ctx.agentLoop.createAgent({ id: 'a' })
    spine.model.queue({ read: 5000 }, { read: 0 })
    await agent.prompt('one')
    const result = await agent.prompt('two')
    expect(result.reason).toBe('done')
    expect(agent.session.events().filter((event) => event.type === 'prompt-cache/break')).toHaveLength(1)
  })
})

describe('the detector', () => {
  it('leaves every dispatched request byte for byte as it is without it', async () => {
    const watched = await scenario()
    const plain = await scenario({ detector: false })
    expect(watched.live).toHaveLength(1)
    expect(watched.model.calls).toHaveLength(3)
    expect(watched.model.calls.map(requestBytes)).toEqual(plain.model.calls.map(requestBytes))
    expect(requestBytes(watched.agent.lastRequest)).toBe(requestBytes(plain.agent.lastRequest))
  })

  it('fingerprints a dispatched request with its sections, tools and route mode', async () => {
    const { ctx, agent } = await scenario()
    const print = ctx.promptCache.fingerprint(agent.lastRequest!)
    expect(print).toMatchObject({
      model: 'cache-a',
      tools: [{ name: 'alpha' }, { name: 'beta' }],
      deferredTools: [],
      toolUpdateMode: 'none',
    })
    expect(print.systemHash).toMatch(/^[0-9a-f]{16}$/)
    expect(print.sections!.map((section) => section.name)).toEqual(['harness:identity', 'deployment:persona'])
    const persona = print.sections![1]!
    expect(Buffer.from(agent.lastRequest!.system).subarray(persona.start, persona.end).toString()).toBe(PERSONA)
  })
})
