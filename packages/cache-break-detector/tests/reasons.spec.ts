import { afterEach, describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import { IDENTITY_TEXT } from 'dsh-system-prompt'
import { PERSONA, setup, sleep, toolPlugin } from './setup.ts'

type Spine = Awaited<ReturnType<typeof setup>>
let spine: Spine | undefined
afterEach(async () => { await spine?.dispose(); spine = undefined })

/** A spine with tools alpha and gamma and one agent `a` on cache-a. */
async function withAgent(options: Parameters<typeof setup>[0] = {}) {
  spine = await setup(options)
  await spine.plug(toolPlugin('alpha'))
  await spine.plug(toolPlugin('gamma'))
  const agent = await spine.ctx.agentLoop.createAgent({ id: 'a' })
  return { ...spine, agent }
}

/** Runs one turn per read figure. */
async function turns(s: Spine, agent: { prompt(text: string): Promise<unknown> }, ...reads: number[]) {
  for (const read of reads) {
    s.model.queue({ read })
    await agent.prompt(`read ${read}`)
  }
}

const breaks = (s: Spine) => s.live.map(({ info }) => info)

describe('no break', () => {
  it('is reported while cache reads hold or grow', async () => {
    const s = await withAgent()
    await turns(s, s.agent, 4000, 4000, 6000, 6000)
    expect(breaks(s)).toEqual([])
    expect(s.agent.session.events().some((event) => event.type === 'prompt-cache/break')).toBe(false)
  })

  it('is reported for a fall short of either threshold', async () => {
    const s = await withAgent()
    // Falls of 40%, 13%, 42% and 40% are short of the default ratio; 900 → 400 is 56% but only 500 tokens.
    await turns(s, s.agent, 5000, 3000, 2600, 1500, 900, 400)
    expect(breaks(s)).toEqual([])
    await turns(s, s.agent, 3000, 1400)
    expect(breaks(s).map((info) => [info.previousCacheReadTokens, info.currentCacheReadTokens])).toEqual([[3000, 1400]])
  })

  it('follows configured thresholds', async () => {
    const s = await withAgent({ detector: { minDropRatio: 0.9, minDropTokens: 5000 } })
    await turns(s, s.agent, 10_000, 2000) // 80%: short of 0.9
    await turns(s, s.agent, 5500, 100) // 98%, but 5400 tokens... enough
    await turns(s, s.agent, 4000, 0) // 100%, but 4000 tokens: short of 5000
    expect(breaks(s).map((info) => [info.previousCacheReadTokens, info.currentCacheReadTokens])).toEqual([[5500, 100]])
  })

  it('is reported when the detector is disabled', async () => {
    const s = await withAgent({ detector: { enabled: false } })
    await turns(s, s.agent, 8000, 0)
    expect(breaks(s)).toEqual([])
    expect(s.ctx.promptCache.breaks('a')).toEqual([])
  })

  it('is reported between different agents', async () => {
    const s = await withAgent()
    const other = await s.ctx.agentLoop.createAgent({ id: 'b' })
    await turns(s, s.agent, 9000)
    await turns(s, other, 0)
    expect(breaks(s)).toEqual([])
  })
})

describe('break reasons', () => {
  it('tools_schema_changed names an added tool', async () => {
    const s = await withAgent()
    await turns(s, s.agent, 6000)
    await s.plug(toolPlugin('beta'))
    await turns(s, s.agent, 0)
    expect(breaks(s)).toEqual([expect.objectContaining({
      turn: 2, step: 1, reason: 'tools_schema_changed', allReasons: ['tools_schema_changed'], addedTools: ['beta'], changedToolNames: ['beta'],
      previousCacheReadTokens: 6000, currentCacheReadTokens: 0,
    })])
  })

  it('tools_schema_changed names a removed tool', async () => {
    const s = await withAgent()
    const beta = await s.plug(toolPlugin('beta'))
    await turns(s, s.agent, 6000)
    await beta.dispose()
    await turns(s, s.agent, 1000)
    expect(breaks(s)).toEqual([expect.objectContaining({ reason: 'tools_schema_changed', allReasons: ['tools_schema_changed'], removedTools: ['beta'], changedToolNames: ['beta'] })])
  })

  it('tools_order_changed when a system-prompt/assemble listener reorders the same tools', async () => {
    const s = await withAgent()
    let reverse = false
    s.ctx.on('system-prompt/assemble', (assembly, _context, next) => {
      if (reverse) assembly.tools.reverse()
      return next()
    })
    await turns(s, s.agent, 6000)
    reverse = true
    await turns(s, s.agent, 0)
    expect(s.agent.lastRequest!.tools.map((tool) => tool.name)).toEqual(['gamma', 'alpha'])
    const [info] = breaks(s)
    expect(info).toMatchObject({ reason: 'tools_order_changed', allReasons: ['tools_order_changed'] })
    expect(info).not.toHaveProperty('addedTools')
    expect(info).not.toHaveProperty('changedTools')
  })

  it('tools_schema_changed names the tool whose schema changed', async () => {
    const s = await withAgent()
    const before = await s.plug(toolPlugin('beta', { type: 'object', properties: { path: { type: 'string' } } }))
    await turns(s, s.agent, 6000)
    await before.dispose()
    await s.plug(toolPlugin('beta', { type: 'object', properties: { path: { type: 'string' }, depth: { type: 'integer' } } }))
    await turns(s, s.agent, 0)
    expect(breaks(s)).toEqual([expect.objectContaining({
      reason: 'tools_schema_changed', allReasons: ['tools_schema_changed'], changedTools: ['beta'],
    })])
  })

  it.each([['canonical', true], ['registered', false]] as const)('a schema that only changed its key order is not tools_schema_changed (schemaKeyOrder %s; same bytes: %s)', async (schemaKeyOrder, same) => {
    const s = await withAgent({ schemaKeyOrder })
    const before = await s.plug(toolPlugin('beta', { type: 'object', properties: { path: { type: 'string', description: 'P.' } }, required: ['path'] }))
    await turns(s, s.agent, 6000)
    const sent = JSON.stringify(s.agent.lastRequest!.tools)
    await before.dispose()
    await s.plug(toolPlugin('beta', { required: ['path'], properties: { path: { description: 'P.', type: 'string' } }, type: 'object' }))
    await turns(s, s.agent, 0)
    expect(JSON.stringify(s.agent.lastRequest!.tools) === sent).toBe(same)
    const [info] = breaks(s)
    expect(info!.reason).toBe('likely_provider_ttl_or_eviction')
    expect(info).not.toHaveProperty('changedTools')
  })

  it('system_changed names the section and the byte offset of the first changed byte', async () => {
    const s = await withAgent()
    let notes = 'Notes: alpha'
    await s.plug(sectionPlugin('test:notes', 10, () => notes))
    await turns(s, s.agent, 6000)
    notes = 'Notes: beta'
    await turns(s, s.agent, 0)
    const prefix = `${IDENTITY_TEXT}\n\n${PERSONA}\n\nNotes: `
    expect(s.agent.lastRequest!.system).toBe(`${prefix}beta`)
    // The persona has multi-byte characters: the offset counts bytes, not UTF-16 units.
    expect(Buffer.byteLength(prefix)).not.toBe(prefix.length)
    expect(breaks(s)).toEqual([expect.objectContaining({
      reason: 'system_changed', allReasons: ['system_changed'], section: 'test:notes', offset: Buffer.byteLength(prefix),
    })])
  })

  it('system_changed names a section inserted before others', async () => {
    const s = await withAgent()
    await s.plug(sectionPlugin('test:notes', 10, () => 'Notes.'))
    await turns(s, s.agent, 6000)
    await s.plug(sectionPlugin('test:inserted', 5, () => 'Inserted.'))
    await turns(s, s.agent, 0)
    expect(breaks(s)).toEqual([expect.objectContaining({
      reason: 'system_changed', section: 'test:inserted', offset: Buffer.byteLength(`${IDENTITY_TEXT}\n\n${PERSONA}\n\n`),
    })])
  })

  it('model_changed when the agent comes back on another model of the same adapter', async () => {
    const s = await withAgent()
    await turns(s, s.agent, 6000)
    await s.ctx.agentLoop.removeAgent('a')
    const again = await s.ctx.agentLoop.createAgent({ id: 'a', model: 'cache-b' })
    await turns(s, again, 0)
    expect(again.lastRequest!.model).toBe('cache-b')
    expect(breaks(s)).toEqual([expect.objectContaining({
      reason: 'model_changed', allReasons: ['model_changed'], previousModel: 'cache-a', model: 'cache-b',
    })])
    expect(s.live[0]!.agent).toBe(again)
  })

  it('likely_provider_ttl_or_eviction with the gap when nothing changed', async () => {
    const s = await withAgent()
    await turns(s, s.agent, 6000)
    await sleep(60)
    await turns(s, s.agent, 0)
    const [info] = breaks(s)
    expect(info).toMatchObject({ reason: 'likely_provider_ttl_or_eviction', allReasons: ['likely_provider_ttl_or_eviction'] })
    expect(info!.gapMs).toBeGreaterThanOrEqual(50)
    expect(info!.gapMs).toBeLessThan(10_000)
  })

  it('compares the steps of one turn, and reports the step', async () => {
    const s = await withAgent()
    s.model.queue({ read: 5000, toolCalls: [{ id: 'c1', name: 'alpha', arguments: {} }] }, { read: 0 })
    await s.agent.prompt('call alpha')
    expect(breaks(s)).toEqual([expect.objectContaining({ turn: 1, step: 2, reason: 'likely_provider_ttl_or_eviction' })])
  })

  it('names the earliest change and lists every change', async () => {
    const s = await withAgent()
    let notes = 'one'
    await s.plug(sectionPlugin('test:notes', 10, () => notes))
    await turns(s, s.agent, 6000)
    await s.ctx.agentLoop.removeAgent('a')
    const again = await s.ctx.agentLoop.createAgent({ id: 'a', model: 'cache-b' })
    await s.plug(toolPlugin('beta'))
    notes = 'two'
    await turns(s, again, 0)
    expect(breaks(s)).toEqual([expect.objectContaining({
      reason: 'model_changed', allReasons: ['model_changed', 'tools_schema_changed', 'system_changed'], addedTools: ['beta'], section: 'test:notes',
    })])
  })
})

function sectionPlugin(name: string, order: number, text: () => string) {
  return {
    name: `section-${name}`,
    inject: ['systemPrompt'],
    apply(ctx: Context) {
      ctx.systemPrompt.section({ name, order, text })
    },
  }
}
