import type { ChatMessage, ToolSchema } from 'dsh-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { GenerateOptions } from 'dsh-llm'
import { classifyBreak, fingerprint } from '../src/index.ts'
import { CacheBreakDetectorError } from '../src/errors.ts'
import { checkRules, type CacheRules } from '../src/rules.ts'
import { explainBreak } from '../src/explain.ts'
import { layoutOf } from '../src/layout.ts'
import { predictCacheRead } from '../src/predict.ts'
import { type CacheMark, type PrefixLayout } from '../src/layout.ts'
import { type RuledObservation } from '../src/explain.ts'

const tool = (name: string, description = `${name} tool, described at some length. `.repeat(40)): ToolSchema =>
  ({ name, description, parameters: { type: 'object' } })
const TOOLS = ['alpha', 'beta', 'gamma', 'delta'].map((name) => tool(name))
const SYSTEM = 'You are DSH, a careful assistant. '.repeat(200)

const OPENAI: CacheRules = { profile: 'openai', mechanism: 'automatic', unitTokens: 128, minimumTokens: 1024, ttlMs: 3_600_000 }
const ANTHROPIC: CacheRules = { profile: 'anthropic', mechanism: 'breakpoints', unitTokens: 1, minimumTokens: 1024, ttlMs: 300_000, lookbackBlocks: 20 }

const user = (text: string): ChatMessage => Object.freeze({ role: 'user', text })
const history = (count: number, from = 0) => Array.from({ length: count }, (_, index) => user(`question ${from + index}: ${'context '.repeat(30)}`))

interface Shape {
  tools?: ToolSchema[]
  system?: string
  messages: ChatMessage[]
  /** markers the route put on this request (the planner's places) */
  marks?: CacheMark[]
  input?: number
  read: number
  at?: number
}

/** An observation, laid out after `previous` when given (as the detector does step after step). */
function seen({ tools = TOOLS, system = SYSTEM, messages, marks, input, read, at = 0 }: Shape, previous?: RuledObservation): RuledObservation {
  const options: GenerateOptions = { model: 'm', system, tools, messages }
  const print = fingerprint(options)
  const layout: PrefixLayout = layoutOf(options, print.tools.map((entry) => entry.hash), '', marks, previous?.layout)
  // by default the provider counts a token per four characters of the request
  const chars = layout.messageCount ? layout.charEnds[layout.messageCount - 1]! : layout.systemEnd
  return { fingerprint: print, system, layout, usage: { inputTokens: input ?? Math.ceil(chars / 4), cacheReadTokens: read, cacheWriteTokens: 0 }, at }
}

const ROLLING: CacheMark[] = ['tools', 'system', -1]
const lastIndex = (messages: ChatMessage[]) => messages.length - 1

describe('predictCacheRead', () => {
  it('predicts the whole previous request, in whole units, when the next one extends it on an automatic cache', () => {
    const first = seen({ messages: history(4), read: 0 })
    const next = seen({ messages: history(6), read: 0, at: 1000 }, first)
    const prediction = predictCacheRead({ ...first, inputTokens: first.usage.inputTokens }, { ...next, inputTokens: next.usage.inputTokens }, OPENAI)
    expect(prediction.prefixTokens).toBe(first.usage.inputTokens)
    expect(prediction.tokens).toBe(Math.floor(first.usage.inputTokens / 128) * 128)
    expect(prediction.causes).toEqual([])
  })

  it('predicts up to the last breakpoint of the previous request on an explicit cache, and nothing without breakpoints', () => {
    const messages = history(4)
    const first = seen({ messages, marks: ['tools', 'system', lastIndex(messages)], read: 0 })
    const more = history(6)
    const next = seen({ messages: more, marks: ['tools', 'system', lastIndex(more)], read: 0, at: 1 }, first)
    const inputs = (a: RuledObservation) => ({ layout: a.layout, inputTokens: a.usage.inputTokens, at: a.at! })
    expect(predictCacheRead(inputs(first), inputs(next), ANTHROPIC).tokens).toBe(first.usage.inputTokens)
    // the previous request marked only its tools: that is all that can be read
    const toolsOnly = seen({ messages, marks: ['tools'], read: 0 })
    const read = predictCacheRead(inputs(toolsOnly), inputs(next), ANTHROPIC)
    expect(read.tokens).toBeLessThan(first.usage.inputTokens / 2)
    expect(read.tokens).toBeGreaterThan(0)
    const bare = seen({ messages, read: 0 })
    expect(predictCacheRead(inputs(bare), inputs(seen({ messages: more, read: 0 }, bare)), ANTHROPIC)).toMatchObject({ tokens: 0, causes: ['no_breakpoint'] })
  })

  it('finds an earlier breakpoint only within the lookback of a breakpoint of the request', () => {
    const messages = history(3)
    const first = seen({ messages, marks: ['tools', 'system', 2], read: 0 })
    const inputs = (a: RuledObservation) => ({ layout: a.layout, inputTokens: a.usage.inputTokens })
    // 25 blocks later, the newest message's marker is past the 20-block lookback of the earlier one
    const far = history(28)
    const missed = predictCacheRead(inputs(first), inputs(seen({ messages: far, marks: ['tools', 'system', 27], read: 0 }, first)), ANTHROPIC)
    // still found: the system-end entry, in reach of the system marker
    expect(missed.tokens).toBe(Math.floor(first.usage.inputTokens * first.layout.systemEnd / first.layout.charEnds[2]!))
    // an extra marker within 20 blocks of the old one bridges the gap
    const bridged = predictCacheRead(inputs(first), inputs(seen({ messages: far, marks: ['tools', 'system', 15, 27], read: 0 }, first)), ANTHROPIC)
    expect(bridged.tokens).toBe(first.usage.inputTokens)
  })
})

describe('explainBreak', () => {
  it('is the comparison of the specification when the route states no rules', () => {
    const a = seen({ messages: history(2), read: 6000 })
    const b = seen({ messages: history(3), read: 0, at: 10 }, a)
    expect(explainBreak(a, b)).toEqual(classifyBreak(a, b))
    expect(explainBreak(a, b)!.reason).toBe('likely_provider_ttl_or_eviction')
  })

  it('says provider_miss when the rules predicted a hit, nothing changed and the provider read nothing', () => {
    const a = seen({ messages: history(20), read: 6000 })
    const b = seen({ messages: history(21), read: 0, at: 60_000 }, a)
    const found = explainBreak(a, b, { rules: OPENAI })!
    expect(found).toMatchObject({ reason: 'provider_miss', allReasons: ['provider_miss'], profile: 'openai', previousCacheReadTokens: 6000, currentCacheReadTokens: 0 })
    expect(found.predictedCacheReadTokens).toBe(Math.floor(a.usage.inputTokens / 128) * 128)
    // the same figures from a route without rules are put down to the provider's TTL or eviction
    expect(explainBreak(a, b)!.reason).toBe('likely_provider_ttl_or_eviction')
  })

  it('says ttl_expired when the idle gap passed the TTL, with the TTL', () => {
    const marked = seen({ messages: history(20), marks: ROLLING.map(resolve(20)), read: 6000 })
    const late = seen({ messages: history(21), marks: ROLLING.map(resolve(21)), read: 0, at: 300_001 }, marked)
    expect(explainBreak(marked, late, { rules: ANTHROPIC })).toMatchObject({ reason: 'ttl_expired', ttlMs: 300_000, predictedCacheReadTokens: 0, gapMs: 300_001 })
    const soon = seen({ messages: history(21), marks: ROLLING.map(resolve(21)), read: 0, at: 299_999 }, marked)
    expect(explainBreak(marked, soon, { rules: ANTHROPIC })!.reason).toBe('provider_miss')
  })

  it('says no_breakpoint on an explicit cache whose requests carry no marker, even when the previous read was zero', () => {
    const a = seen({ messages: history(20), read: 0 })
    const b = seen({ messages: history(21), read: 0, at: 1000 }, a)
    expect(classifyBreak(a, b)).toBeUndefined()
    expect(explainBreak(a, b, { rules: ANTHROPIC })).toMatchObject({ reason: 'no_breakpoint', allReasons: ['no_breakpoint'], predictedCacheReadTokens: 0 })
    // an automatic cache needs no marker: the same requests reading their prefix are fine
    const hit = seen({ messages: history(21), read: Math.floor(a.usage.inputTokens / 128) * 128, at: 1000 }, a)
    expect(explainBreak(a, hit, { rules: OPENAI })).toBeUndefined()
  })

  it('says below_minimum when the shared prefix is shorter than the minimum', () => {
    const small = { ...OPENAI, minimumTokens: 100_000 }
    const a = seen({ messages: history(2), read: 0 })
    const b = seen({ messages: history(3), read: 0, at: 1 }, a)
    expect(explainBreak(a, b, { rules: small })).toMatchObject({ reason: 'below_minimum', predictedCacheReadTokens: 0 })
    expect(explainBreak(a, b, { rules: OPENAI, thresholds: { minDropTokens: 10_000 } })).toBeUndefined()
  })

  it('keeps the reason of the specification when a change in the prefix explains the read', () => {
    const a = seen({ messages: history(20), read: 6000 })
    const tools = [tool('aardvark'), ...TOOLS]
    const b = seen({ tools, messages: history(21), read: 0, at: 1000 }, a)
    expect(explainBreak(a, b, { rules: OPENAI })).toMatchObject({ reason: 'tools_schema_changed', addedTools: ['aardvark'], predictedCacheReadTokens: 0 })
  })

  it('names the TTL as well when a change and an expired TTL both apply', () => {
    const a = seen({ messages: history(20), read: 6000 })
    const b = seen({ tools: [tool('aardvark'), ...TOOLS], messages: history(21), read: 0, at: 9_000_000 }, a)
    expect(explainBreak(a, b, { rules: OPENAI })!.allReasons).toEqual(['tools_schema_changed', 'ttl_expired'])
  })

  it('predicts no more than the shared prefix, in whole units, whatever the histories', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 10 }), fc.boolean(), (kept, added, changeSystem) => {
      const a = seen({ messages: history(kept + 2), read: 0 })
      const b = seen({ system: changeSystem ? `${SYSTEM}!` : SYSTEM, messages: [...history(kept), ...history(added + 1, 100)], read: 0, at: 1 }, a)
      const prediction = predictCacheRead({ layout: a.layout, inputTokens: a.usage.inputTokens }, { layout: b.layout, inputTokens: b.usage.inputTokens }, OPENAI)
      expect(prediction.tokens).toBeLessThanOrEqual(prediction.prefixTokens)
      expect(prediction.tokens % 128).toBe(0)
      expect(prediction.prefixTokens).toBeLessThan(a.usage.inputTokens)
    }))
  })
})

describe('checkRules', () => {
  it.each([
    [{ mechanism: 'magic' }, 'mechanism must be automatic or breakpoints, got "magic"'],
    [{ unitTokens: 0 }, 'unitTokens must be a whole number >= 1, got 0'],
    [{ minimumTokens: -1 }, 'minimumTokens must be a whole number >= 0, got -1'],
    [{ ttlMs: 0 }, 'ttlMs must be a number of milliseconds > 0, got 0'],
    [{ lookbackBlocks: 1.5 }, 'lookbackBlocks must be a whole number >= 0, got 1.5'],
  ])('refuses %o naming the field and the valid values', (change, message) => {
    expect(() => checkRules({ ...ANTHROPIC, ...change } as CacheRules)).toThrow(new CacheBreakDetectorError('INVALID_RULES', `cache rules of profile "anthropic": ${message}`))
  })

  it('accepts the documented rules', () => {
    expect(checkRules(ANTHROPIC)).toBe(ANTHROPIC)
    expect(checkRules(OPENAI)).toBe(OPENAI)
  })
})

// a negative mark counts from the end of a history of `count` messages
function resolve(count: number) {
  return (mark: CacheMark): CacheMark => typeof mark === 'number' && mark < 0 ? count + mark : mark
}

