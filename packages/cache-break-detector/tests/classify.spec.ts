import type { ToolSchema } from 'dsh-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { GenerateOptions, ToolUpdateMode } from 'dsh-llm'
import type { RenderedSection } from 'dsh-system-prompt/bytes'
import { classifyBreak, fingerprint } from '../src/index.ts'
import type { CacheObservation } from '../src/types.ts'
import { CacheBreakDetectorError } from '../src/errors.ts'

const tool = (name: string, parameters: object = { type: 'object' }): ToolSchema => ({ name, description: `${name} tool`, parameters })
const TOOLS = [tool('alpha'), tool('beta'), tool('gamma')]
const SECTIONS: RenderedSection[] = [{ name: 'identity', text: 'You are DSH.' }, { name: 'persona', text: 'Terse — très.' }, { name: 'notes', text: 'Notes: one.' }]

interface Shape {
  model?: string
  tools?: ToolSchema[]
  sections?: RenderedSection[]
  deferredTools?: string[]
  mode?: ToolUpdateMode
  read: number
  write?: number
  at?: number
}

/** An observation of a request with the given shape (defaults: model m, TOOLS, SECTIONS). */
function seen({ model = 'm', tools = TOOLS, sections = SECTIONS, deferredTools, mode, read, write = 0, at }: Shape): CacheObservation {
  const system = sections.map((section) => section.text).join('\n\n')
  const options: GenerateOptions = { model, system, tools, messages: [], ...(deferredTools ? { deferredTools } : {}) }
  return {
    fingerprint: fingerprint(options, { sections, ...(mode ? { toolUpdateMode: mode } : {}) }),
    usage: { cacheReadTokens: read, cacheWriteTokens: write },
    system,
    ...(at === undefined ? {} : { at }),
  }
}

const offsetOf = (text: string) => Buffer.byteLength(text)

describe('classifyBreak: when', () => {
  it('finds nothing while reads hold, grow, or start from zero', () => {
    expect(classifyBreak(seen({ read: 5000 }), seen({ read: 5000 }))).toBeUndefined()
    expect(classifyBreak(seen({ read: 5000 }), seen({ read: 9000 }))).toBeUndefined()
    expect(classifyBreak(seen({ read: 0 }), seen({ read: 0, model: 'other' }), { minDropTokens: 0 })).toBeUndefined()
  })

  it('uses the default thresholds: half the previous read and 1024 tokens, both inclusive', () => {
    expect(classifyBreak(seen({ read: 4000 }), seen({ read: 2000 }))).toBeDefined()
    expect(classifyBreak(seen({ read: 4000 }), seen({ read: 2001 }))).toBeUndefined()
    expect(classifyBreak(seen({ read: 2048 }), seen({ read: 1024 }))).toBeDefined()
    expect(classifyBreak(seen({ read: 2046 }), seen({ read: 1023 }))).toBeUndefined()
  })

  it('follows given thresholds', () => {
    expect(classifyBreak(seen({ read: 100 }), seen({ read: 99 }), { minDropRatio: 0.01, minDropTokens: 0 })).toBeDefined()
    expect(classifyBreak(seen({ read: 100 }), seen({ read: 99 }), { minDropRatio: 0.02, minDropTokens: 0 })).toBeUndefined()
    expect(classifyBreak(seen({ read: 100 }), seen({ read: 1 }), { minDropRatio: 1, minDropTokens: 0 })).toBeUndefined()
    expect(classifyBreak(seen({ read: 100 }), seen({ read: 0 }), { minDropRatio: 1, minDropTokens: 0 })).toBeDefined()
    expect(classifyBreak(seen({ read: 10_000 }), seen({ read: 0 }), { minDropTokens: 10_001 })).toBeUndefined()
  })

  it.each([
    [{ minDropRatio: 0 }, 'minDropRatio must be a number greater than 0 and at most 1, got 0'],
    [{ minDropRatio: 1.01 }, 'got 1.01'],
    [{ minDropRatio: Number.NaN }, 'got NaN'],
    [{ minDropRatio: '0.5' }, 'got "0.5"'],
    [{ minDropTokens: -1 }, 'minDropTokens must be a finite number of at least 0, got -1'],
    [{ minDropTokens: Number.POSITIVE_INFINITY }, 'got Infinity'],
  ])('refuses thresholds %j', (thresholds, message) => {
    const run = () => classifyBreak(seen({ read: 5000 }), seen({ read: 0 }), thresholds as never)
    expect(run).toThrow(CacheBreakDetectorError)
    expect(run).toThrow(message)
  })
})

describe('classifyBreak: why', () => {
  it('reports the figures and, with nothing changed, the provider with the gap', () => {
    expect(classifyBreak(seen({ read: 6000, at: 1000 }), seen({ read: 100, write: 5900, at: 301_000 }))).toEqual({
      reason: 'likely_provider_ttl_or_eviction', allReasons: ['likely_provider_ttl_or_eviction'],
      previousCacheReadTokens: 6000, currentCacheReadTokens: 100, currentCacheWriteTokens: 5900, changedToolNames: [], gapMs: 300_000,
    })
    expect(classifyBreak(seen({ read: 6000 }), seen({ read: 0 }))).not.toHaveProperty('gapMs')
  })

  it('model_changed with both models', () => {
    expect(classifyBreak(seen({ read: 6000 }), seen({ read: 0, model: 'n' }))).toMatchObject({
      reason: 'model_changed', allReasons: ['model_changed'], previousModel: 'm', model: 'n',
    })
  })

  it('tools_schema_changed for an added or removed tool, with the names', () => {
    expect(classifyBreak(seen({ read: 6000 }), seen({ read: 0, tools: [...TOOLS, tool('delta')] }))).toMatchObject({
      reason: 'tools_schema_changed', allReasons: ['tools_schema_changed'], addedTools: ['delta'], changedToolNames: ['delta'],
    })
    expect(classifyBreak(seen({ read: 6000 }), seen({ read: 0, tools: [TOOLS[0]!, TOOLS[2]!] }))).toMatchObject({
      reason: 'tools_schema_changed', allReasons: ['tools_schema_changed'], removedTools: ['beta'], changedToolNames: ['beta'],
    })
  })

  it('tools_schema_changed with the changed names', () => {
    const tools = [TOOLS[0]!, tool('beta', { type: 'object', required: ['x'] }), tool('gamma', { type: 'string' })]
    expect(classifyBreak(seen({ read: 6000 }), seen({ read: 0, tools }))).toMatchObject({
      reason: 'tools_schema_changed', allReasons: ['tools_schema_changed'], changedTools: ['beta', 'gamma'], changedToolNames: ['beta', 'gamma'],
    })
  })

  it('tools_order_changed for any other order of the same tools, and nothing else', () => {
    const names = ['a', 'b', 'c', 'd', 'e']
    fc.assert(fc.property(fc.shuffledSubarray(names, { minLength: 5, maxLength: 5 }), (order) => {
      fc.pre(order.join() !== names.join())
      const found = classifyBreak(seen({ read: 6000, tools: names.map((name) => tool(name)) }), seen({ read: 0, tools: order.map((name) => tool(name)) }))
      expect(found).toMatchObject({ reason: 'tools_order_changed', allReasons: ['tools_order_changed'] })
      expect(found).not.toHaveProperty('changedTools')
      // The names out of place among the shared ones: never empty, never a name that kept its place.
      expect(found!.changedToolNames.length).toBeGreaterThan(0)
      expect(found!.changedToolNames.every((name) => order.indexOf(name) !== names.indexOf(name))).toBe(true)
    }))
  })

  it('names every tool behind a tools reason: current order first, removed names last', () => {
    const schemaFirst = [tool('alpha', { type: 'string' }), TOOLS[1]!, TOOLS[2]!, tool('zeta')]
    expect(classifyBreak(seen({ read: 6000 }), seen({ read: 0, tools: schemaFirst }))).toMatchObject({
      allReasons: ['tools_schema_changed'], changedTools: ['alpha'], addedTools: ['zeta'], changedToolNames: ['alpha', 'zeta'],
    })
    const removedFirst = [TOOLS[1]!, TOOLS[2]!, tool('zeta')]
    expect(classifyBreak(seen({ read: 6000 }), seen({ read: 0, tools: removedFirst }))).toMatchObject({
      allReasons: ['tools_schema_changed'], removedTools: ['alpha'], addedTools: ['zeta'], changedToolNames: ['zeta', 'alpha'],
    })
    const movedAndAdded = [tool('aaa'), TOOLS[1]!, TOOLS[0]!, TOOLS[2]!]
    expect(classifyBreak(seen({ read: 6000 }), seen({ read: 0, tools: movedAndAdded }))).toMatchObject({
      allReasons: ['tools_schema_changed', 'tools_order_changed'], changedToolNames: ['aaa', 'beta', 'alpha'],
    })
  })

  it('cache_control_changed for deferred tools on history-capable or unknown routes, and for the route mode', () => {
    const deferred = { read: 0, deferredTools: ['beta'] }
    expect(classifyBreak(seen({ read: 6000 }), seen(deferred))).toMatchObject({ reason: 'cache_control_changed', changedFlags: ['deferredTools'] })
    expect(classifyBreak(seen({ read: 6000, mode: 'in-history' }), seen({ ...deferred, mode: 'in-history' })))
      .toMatchObject({ reason: 'cache_control_changed', changedFlags: ['deferredTools'] })
    expect(classifyBreak(seen({ read: 6000, mode: 'none' }), seen({ ...deferred, mode: 'none' }))!.reason).toBe('likely_provider_ttl_or_eviction')
    expect(classifyBreak(seen({ read: 6000, mode: 'none' }), seen({ read: 0, mode: 'addition-only' })))
      .toMatchObject({ reason: 'cache_control_changed', changedFlags: ['toolUpdateMode'] })
    expect(classifyBreak(seen({ read: 6000 }), seen({ read: 0, mode: 'addition-only' }))!.reason).toBe('likely_provider_ttl_or_eviction')
  })

  it('picks model, then tools, then flags, then the system prompt', () => {
    const everything = seen({
      read: 0, model: 'n', tools: [...TOOLS, tool('delta')], deferredTools: ['delta'],
      sections: [SECTIONS[0]!, SECTIONS[1]!, { name: 'notes', text: 'Notes: two.' }],
    })
    expect(classifyBreak(seen({ read: 6000 }), everything)).toMatchObject({
      reason: 'model_changed', allReasons: ['model_changed', 'tools_schema_changed', 'cache_control_changed', 'system_changed'],
      previousModel: 'm', model: 'n', addedTools: ['delta'], changedFlags: ['deferredTools'], section: 'notes',
    })
  })
})

describe('classifyBreak: system_changed', () => {
  const system = (...sections: RenderedSection[]) => ({ read: 0, sections })
  const [identity, persona, notes] = SECTIONS as [RenderedSection, RenderedSection, RenderedSection]

  it('names the section whose text changed, at the byte offset of the first changed byte', () => {
    const found = classifyBreak(seen({ read: 6000 }), seen(system(identity, { name: 'persona', text: 'Terse — trés.' }, notes)))
    expect(found).toMatchObject({ reason: 'system_changed', section: 'persona', offset: offsetOf('You are DSH.\n\nTerse — tr') + 1 })
  })

  it('names an inserted section, not the one it pushed along', () => {
    const found = classifyBreak(seen({ read: 6000 }), seen(system(identity, persona, { name: 'rules', text: 'Rules.' }, notes)))
    expect(found).toMatchObject({ section: 'rules', offset: offsetOf('You are DSH.\n\nTerse — très.\n\n') })
  })

  it('names a removed section, not the one that moved up', () => {
    const found = classifyBreak(seen({ read: 6000 }), seen(system(identity, notes)))
    expect(found).toMatchObject({ section: 'persona', offset: offsetOf('You are DSH.\n\n') })
  })

  it('names an appended section and a dropped last section', () => {
    const appended = classifyBreak(seen({ read: 6000 }), seen(system(identity, persona, notes, { name: 'tail', text: 'Tail.' })))
    expect(appended).toMatchObject({ section: 'tail', offset: offsetOf(SECTIONS.map((s) => s.text).join('\n\n')) })
    const dropped = classifyBreak(seen({ read: 6000 }), seen(system(identity, persona)))
    expect(dropped).toMatchObject({ section: 'notes', offset: offsetOf('You are DSH.\n\nTerse — très.') })
  })

  it('gives the offset alone when the sections are unknown', () => {
    const previous = seen({ read: 6000 })
    const current = seen(system(identity, persona, { name: 'notes', text: 'Notes: two.' }))
    const { sections: _a, ...before } = previous.fingerprint
    const { sections: _b, ...after } = current.fingerprint
    const found = classifyBreak({ ...previous, fingerprint: before }, { ...current, fingerprint: after })
    expect(found).toMatchObject({ reason: 'system_changed', offset: offsetOf('You are DSH.\n\nTerse — très.\n\nNotes: ') })
    expect(found).not.toHaveProperty('section')
  })
})
