import { afterEach, describe, expect, it } from 'vitest'
import { Context } from 'cordis'
import LlmRuntime from 'dsh-llm'
import PromptCache from '../src/index.ts'
import { CacheBreakDetectorError } from '../src/errors.ts'

let ctx: Context
afterEach(() => { ctx = undefined as never })

async function load(config: unknown) {
  ctx = new Context()
  await ctx.plugin(LlmRuntime)
  return ctx.plugin(PromptCache, config as never)
}

describe('config', () => {
  it('defaults to enabled, a 0.5 ratio and 1024 tokens', async () => {
    await load({})
    expect(ctx.promptCache.config).toEqual({ enabled: true, minDropRatio: 0.5, minDropTokens: 1024, coldNotice: true })
    expect('ttlMs' in ctx.promptCache.config).toBe(false)
  })

  it('accepts the edges of each range', async () => {
    await load({ minDropRatio: 1, minDropTokens: 0, enabled: false, coldNotice: false, ttlMs: 0.5 })
    expect(ctx.promptCache.config).toEqual({ enabled: false, minDropRatio: 1, minDropTokens: 0, coldNotice: false, ttlMs: 0.5 })
  })

  const bad: [string, unknown, RegExp][] = [
    ['minDropRatio', 0, /minDropRatio.*greater than 0 and at most 1.*got 0/],
    ['minDropRatio', -0.2, /minDropRatio.*got -0\.2/],
    ['minDropRatio', 1.5, /minDropRatio.*at most 1.*got 1\.5/],
    ['minDropRatio', Number.NaN, /minDropRatio.*got NaN/],
    ['minDropRatio', '0.5', /minDropRatio.*expected number/],
    ['minDropTokens', -1, /minDropTokens.*>= 0/],
    ['minDropTokens', 1.5, /minDropTokens.*multiple of 1/],
    ['minDropTokens', Number.POSITIVE_INFINITY, /minDropTokens/],
    ['minDropTokens', '1024', /minDropTokens.*expected number/],
    ['enabled', 'yes', /enabled.*expected boolean/],
    ['coldNotice', 'no', /coldNotice.*expected boolean/],
    ['ttlMs', 0, /ttlMs.*greater than 0 and at most 2147483647 but got 0/],
    ['ttlMs', -5, /ttlMs.*got -5/],
    ['ttlMs', '5m', /ttlMs.*greater than 0 and at most 2147483647 but got "5m"/],
    ['ttlMs', 2 ** 31, /ttlMs.*at most 2147483647 but got 2147483648/],
  ]
  for (const [key, value, message] of bad) {
    it(`refuses ${key}: ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`, async () => {
      await expect(load({ [key]: value })).rejects.toThrow(message)
      expect(ctx.get('promptCache')).toBeUndefined()
    })
  }
})
