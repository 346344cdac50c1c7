import { configRefusal, loadWithLlm, withApiKey } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import AnthropicProvider from '../src/index.ts'

// Prices reach ctx.llm through a real adapter plugin, from its model entries, as an app file would give them.
const load = (models: unknown[]) => withApiKey('ANTHROPIC_API_KEY', () => loadWithLlm(AnthropicProvider, { models }))
const refusal = (models: unknown[]) => withApiKey('ANTHROPIC_API_KEY', () => configRefusal(AnthropicProvider, { models }))
const PRICING = 'https://platform.claude.com/docs/en/about-claude/pricing'

describe('prices per model', () => {
  it('serves the anthropic profile\'s price of a listed model, date suffix or not, with its page and the date read', async () => {
    const { ctx } = await load(['claude-opus-5', 'claude-opus-5-20260724', 'claude-opus-5-5'])
    const opus = { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, cacheWrite1h: 10, source: PRICING, date: '2026-12-06' }
    expect(ctx.llm.price('claude-opus-5')).toEqual(opus)
    expect(ctx.llm.price('claude-opus-5-20260724')).toEqual(opus)
    expect(ctx.llm.price('claude-opus-5-5')).toMatchObject({ input: 4, cacheWrite: 5, cacheWrite1h: 8, cacheRead: 0.2, output: 20 })
  })

  it('has no price for a model no page DSH read prices (tokens only), nor for a model nobody serves', async () => {
    const { ctx } = await load(['claude-sonnet-5-5', 'claude-haiku-5-5', { id: 'qwen-plus', provider: 'dashscope' }, 'claude-opus-5-preview'])
    for (const model of ['claude-sonnet-5-5', 'claude-haiku-5-5', 'qwen-plus', 'claude-opus-5-preview', 'not-served']) {
      expect(ctx.llm.price(model), model).toBeUndefined()
      expect(ctx.llm.cost(model, { inputTokens: 1000, outputTokens: 10, cacheReadTokens: 900, cacheWriteTokens: 0 }), model).toBeUndefined()
    }
  })

  it('lets a model entry override the price key by key, the overridden figures then coming from the app file', async () => {
    const { ctx } = await load([
      { id: 'claude-opus-5', price: { cacheRead: 0.4 } },
      { id: 'claude-opus-4-8', price: { source: 'https://example.test/contract', date: '2026-11-30' } },
      { id: 'local-model', price: { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 } },
    ])
    expect(ctx.llm.price('claude-opus-5')).toEqual({ input: 5, output: 25, cacheRead: 0.4, cacheWrite: 6.25, cacheWrite1h: 10, source: 'the app file' })
    expect(ctx.llm.price('claude-opus-4-8')).toMatchObject({ input: 5, source: 'https://example.test/contract', date: '2026-11-30' })
    expect(ctx.llm.price('local-model')).toEqual({ input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25, source: 'the app file' })
  })

  it.each([
    ['a negative price', { input: -1 }, 'price.input -1; it must be a number of USD per million tokens >= 0'],
    ['a string', { output: '3' }, 'price.output "3"; it must be a number of USD per million tokens >= 0'],
    ['NaN', { cacheRead: Number.NaN }, 'price.cacheRead NaN; it must be a number of USD per million tokens >= 0'],
    ['Infinity', { cacheWrite1h: Number.POSITIVE_INFINITY }, 'price.cacheWrite1h Infinity; it must be a number of USD per million tokens >= 0'],
    ['a misspelt key', { cache_read: 0.1 }, 'price.cache_read, which is not a price key; valid: input, output, cacheRead, cacheWrite, cacheWrite1h, source, date'],
    ['a list', [1, 2], 'price [1,2]; it must be a mapping'],
  ])('refuses %s in one line naming the adapter, the model and the key', async (_, price, message) => {
    const text = await refusal([{ id: 'claude-opus-5', price }])
    expect(text).toContain(`dsh-llm-anthropic: model "claude-opus-5" has ${message}`)
    expect(text).not.toContain('\n')
  })

  it('refuses an incomplete price for a model its profile has none for, naming the missing key', async () => {
    expect(await refusal([{ id: 'local-model', price: { input: 1, output: 2, cacheWrite: 1 } }]))
      .toBe('dsh-llm-anthropic: model "local-model" has price without cacheRead, and the profile lists no price for the model to take it from; give input, output, cacheRead, cacheWrite in USD per million tokens')
  })
})

describe('cost of a response', () => {
  const usage = { inputTokens: 10_000, outputTokens: 1_000, cacheReadTokens: 8_000, cacheWriteTokens: 1_500 }

  it('bills each kind of token at its rate, against every prompt token at the input rate with no cache', async () => {
    const { ctx } = await load(['claude-opus-5'])
    const cost = ctx.llm.cost('claude-opus-5', usage)!
    // 500 uncached × $5 + 8,000 read × $0.50 + 1,500 written × $6.25 + 1,000 out × $25, per million
    expect(cost.billed).toBeCloseTo((500 * 5 + 8000 * 0.5 + 1500 * 6.25 + 1000 * 25) / 1e6, 12)
    expect(cost.noCache).toBeCloseTo((10_000 * 5 + 1000 * 25) / 1e6, 12)
    expect(cost.breakCost).toBeUndefined()
    expect(cost.emulated).toBeUndefined()
  })

  it('prices the writes of a one-hour entry at the one-hour rate', async () => {
    const { ctx } = await load([{ id: 'claude-opus-5', cacheTtl: '1h' }])
    expect(ctx.llm.cost('claude-opus-5', usage)!.billed).toBeCloseTo((500 * 5 + 8000 * 0.5 + 1500 * 10 + 1000 * 25) / 1e6, 12)
  })

  it('says what a break cost over a full hit: the missed tokens as written, then as plain input, minus reading them', async () => {
    const { ctx } = await load(['claude-opus-5'])
    // 1,800 missed: 1,500 were written ($6.25), 300 sent as plain input ($5); a hit would have read all 1,800 ($0.50)
    expect(ctx.llm.cost('claude-opus-5', usage, 1800)!.breakCost).toBeCloseTo((1500 * 6.25 + 300 * 5 - 1800 * 0.5) / 1e6, 12)
    expect(ctx.llm.cost('claude-opus-5', { ...usage, emulated: true })!.emulated).toBe(true)
  })
})
