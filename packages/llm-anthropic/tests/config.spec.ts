import { configRefusal, loadWithLlm, withApiKey } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import AnthropicProvider from '../src/index.ts'
import { createAnthropicAdapter } from '../src/adapter.ts'

// The keys every HTTP adapter shares are checked by the contract in http-contract.spec.ts; these are this wire's own.
const load = (config: Record<string, unknown>) => withApiKey('ANTHROPIC_API_KEY', () => loadWithLlm(AnthropicProvider, config))

describe('plugin', () => {
  it('serves its models through ctx.llm with their tool-update modes: append on Anthropic, addition-only on the deepseek profile', async () => {
    const { ctx, fiber } = await load({ models: ['claude-x', { id: 'deepseek-chat', provider: 'deepseek', toolUpdate: 'in-history' }, { id: 'deepseek-v', provider: 'deepseek' }] })
    expect(ctx.llm.models()).toEqual(['claude-x', 'deepseek-chat', 'deepseek-v'])
    expect(ctx.llm.resolve('claude-x').provider).toBe('anthropic')
    expect(ctx.llm.toolUpdateMode('claude-x')).toBe('append')
    expect(ctx.llm.toolUpdateMode('deepseek-chat')).toBe('in-history')
    expect(ctx.llm.toolUpdateMode('deepseek-v')).toBe('addition-only')
    expect(ctx.llm.cachePolicy('claude-x').profile.id).toBe('anthropic')
    expect(ctx.llm.cachePolicy('deepseek-v').profile.id).toBe('deepseek')
    expect(fiber.config).toMatchObject({
      baseURL: 'https://api.anthropic.com',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      maxTokens: 4096,
      toolUpdateBeta: 'mid-conversation-tool-changes-2026-01-01',
    })
  })
})

describe('maxTokens', () => {
  it.each([
    ['zero', 0],
    ['fractional', 1.5],
  ])('is refused %s, naming the key', async (_, value) => {
    expect(await configRefusal(AnthropicProvider, { models: ['m'], maxTokens: value })).toMatch(/maxTokens/)
  })

  it('is refused without Cordis too', () => {
    expect(() => createAnthropicAdapter({ models: ['m'], maxTokens: 0 })).toThrow('dsh-llm-anthropic: maxTokens must be a whole number >= 1, got 0')
  })
})

describe('affinity', () => {
  it('is refused in one line: the Messages wire sends no local engine\'s slot or session field', async () => {
    const refusal = await configRefusal(AnthropicProvider, { baseURL: 'http://127.0.0.1:8080', models: [{ id: 'm', affinity: { field: 'id_slot', slots: 2 } }] })
    expect(refusal).toBe('dsh-llm-anthropic: model "m" has affinity {"field":"id_slot","slots":2}, but dsh-llm-anthropic does not send affinity fields; serve the model through dsh-llm-openai')
  })
})
