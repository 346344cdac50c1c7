import { LlmError } from 'dsh-llm'
import { HttpAdapterError } from 'dsh-llm/http'
import { configRefusal, loadWithLlm } from 'dsh-llm/testing'
import { describe, expect, it } from 'vitest'
import AnthropicProvider, { Config, createAnthropicAdapter, resolveConfig } from '../src/index.ts'

// plugins refuse to start without their key; these checks are about the config
const withDefaultKey = async <T>(body: () => Promise<T>): Promise<T> => {
  const prior = process.env.ANTHROPIC_API_KEY
  process.env.ANTHROPIC_API_KEY = 'sk-config-test'
  try {
    return await body()
  } finally {
    if (prior === undefined) delete process.env.ANTHROPIC_API_KEY
    else process.env.ANTHROPIC_API_KEY = prior
  }
}
const load = (config: Record<string, unknown>) => withDefaultKey(() => loadWithLlm(AnthropicProvider, config))
const refusal = (config: Record<string, unknown>) => configRefusal(AnthropicProvider, config)

describe('plugin', () => {
  it('serves its models through ctx.llm with their tool-update modes, and stops serving them when disposed', async () => {
    const { ctx, fiber } = await load({ models: ['claude-x', { id: 'deepseek-chat', toolUpdate: 'in-history' }, { id: 'plain', toolUpdate: 'none' }] })
    expect(ctx.llm.models()).toEqual(['claude-x', 'deepseek-chat', 'plain'])
    expect(ctx.llm.resolve('claude-x').provider).toBe('anthropic')
    expect(ctx.llm.toolUpdateMode('claude-x')).toBe('addition-only')
    expect(ctx.llm.toolUpdateMode('deepseek-chat')).toBe('in-history')
    expect(ctx.llm.toolUpdateMode('plain')).toBe('none')
    expect(fiber.config).toMatchObject({
      baseURL: 'https://api.anthropic.com',
      apiKeyEnv: 'ANTHROPIC_API_KEY',
      maxTokens: 4096,
      maxRetries: 0,
      headers: {},
      toolUpdateBeta: 'mid-conversation-tool-changes-2026-01-01',
    })
    await fiber.dispose()
    expect(() => ctx.llm.resolve('claude-x')).toThrow(LlmError)
  })
})

describe('wrong config values are refused with the key named', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['baseURL not a URL', { baseURL: 'api.deepseek.com/anthropic', models: ['m'] }, /baseURL must be an http\(s\) URL, got "api\.deepseek\.com\/anthropic"/],
    ['baseURL not http', { baseURL: 'file:///tmp', models: ['m'] }, /baseURL must be an http\(s\) URL/],
    ['apiKeyEnv not a name', { apiKeyEnv: '$ANTHROPIC_API_KEY', models: ['m'] }, /apiKeyEnv must be the NAME of an environment variable/],
    ['models missing', {}, /models must list at least one model/],
    ['models empty', { models: [] }, /models must list at least one model/],
    ['model entry without id', { models: [{ toolUpdate: 'none' }] }, /models/],
    ['model id empty', { models: [''] }, /model ids must be non-empty strings, got ""/],
    ['model listed twice', { models: ['a', { id: 'a' }] }, /model "a" is listed twice/],
    ['unknown toolUpdate', { models: [{ id: 'a', toolUpdate: 'sometimes' }] }, /models/],
    ['contextWindow zero', { models: [{ id: 'a', contextWindow: 0 }] }, /model "a" has contextWindow 0; it must be a whole number of tokens >= 1/],
    ['contextWindow a string', { models: [{ id: 'a', contextWindow: 'big' }] }, /models/],
    ['maxTokens zero', { models: ['m'], maxTokens: 0 }, /maxTokens/],
    ['maxTokens fractional', { models: ['m'], maxTokens: 1.5 }, /maxTokens/],
    ['maxRetries negative', { models: ['m'], maxRetries: -1 }, /maxRetries/],
    ['timeoutMs zero', { models: ['m'], timeoutMs: 0 }, /timeoutMs/],
    ['idleTimeoutMs zero', { models: ['m'], idleTimeoutMs: 0 }, /idleTimeoutMs/],
    ['idleTimeoutMs a string', { models: ['m'], idleTimeoutMs: '5s' }, /idleTimeoutMs/],
    ['headers with a credential', { models: ['m'], headers: { 'X-Api-Key': 'k' } }, /headers must not carry credentials \("X-Api-Key"\)/],
    ['toolUpdateBeta with a newline', { models: ['m'], toolUpdateBeta: 'a\nb' }, /toolUpdateBeta must be a header value/],
    ['toolUpdateBeta not a string', { models: ['m'], toolUpdateBeta: true }, /toolUpdateBeta/],
  ]
  for (const [name, config, message] of cases) {
    it(name, async () => {
      expect(await refusal(config)).toMatch(message)
    })
  }

  it('names the valid modes when built without Cordis', () => {
    expect(() => createAnthropicAdapter({ models: [{ id: 'a', toolUpdate: 'sometimes' as never }] }))
      .toThrow('model "a" has toolUpdate "sometimes"; valid: none, addition-only, in-history')
    expect(() => createAnthropicAdapter({ models: [] })).toThrow(HttpAdapterError)
    expect(() => createAnthropicAdapter({ models: [{ id: 'a', contextWindow: -5 }] }))
      .toThrow('model "a" has contextWindow -5; it must be a whole number of tokens >= 1')
  })

  it('defaults to a 120 s header timeout and a 300 s idle timeout between streamed events', () => {
    expect(Config({ models: ['m'] } as never)).toMatchObject({ timeoutMs: 120_000, idleTimeoutMs: 300_000 })
    expect(resolveConfig({ models: ['m'] })).toMatchObject({ timeoutMs: 120_000, idleTimeoutMs: 300_000 })
  })

  it('declares each model\'s context window, 200000 tokens by default', async () => {
    const { ctx } = await load({ models: ['plain', { id: 'small', contextWindow: 32_000 }] })
    expect(ctx.llm.contextWindow('plain')).toBe(200_000)
    expect(ctx.llm.contextWindow('small')).toBe(32_000)
  })
})
