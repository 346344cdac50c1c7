import { configRefusal, loadWithLlm, withApiKey } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import OpenAIProvider from '../src/index.ts'

const load = (models: unknown[]) => withApiKey('OPENAI_API_KEY', () => loadWithLlm(OpenAIProvider, { models }))

describe('prices on a Chat Completions route', () => {
  it('has none for a model no page DSH read prices for, unless its entry gives one', async () => {
    const { ctx } = await load(['gpt-5.6', { id: 'deepseek-v4-flash', provider: 'deepseek' }, { id: 'local', price: { input: 0.1, output: 0.2, cacheRead: 0.01, cacheWrite: 0.1 } }])
    expect(ctx.llm.price('gpt-5.6')).toBeUndefined()
    expect(ctx.llm.price('deepseek-v4-flash')).toBeUndefined()
    expect(ctx.llm.price('local')).toEqual({ input: 0.1, output: 0.2, cacheRead: 0.01, cacheWrite: 0.1, source: 'the app file' })
  })

  it('refuses a negative price in one line naming the adapter, the model and the key', async () => {
    const message = await withApiKey('OPENAI_API_KEY', () => configRefusal(OpenAIProvider, { models: [{ id: 'local', price: { input: 0.1, output: -0.2, cacheRead: 0, cacheWrite: 0 } }] }))
    expect(message).toBe('dsh-llm-openai: model "local" has price.output -0.2; it must be a number of USD per million tokens >= 0')
  })
})
