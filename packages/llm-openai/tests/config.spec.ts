import { LlmError } from 'dsh-llm'
import { HttpAdapterError } from 'dsh-llm/http'
import { configRefusal, loadWithLlm } from 'dsh-llm/testing'
import { describe, expect, it } from 'vitest'
import OpenAIProvider, { Config, createOpenAIAdapter, resolveConfig, type OpenAIConfig } from '../src/index.ts'

// plugins refuse to start without their key; these checks are about the config
const withDefaultKey = async <T>(body: () => Promise<T>): Promise<T> => {
  const prior = process.env.OPENAI_API_KEY
  process.env.OPENAI_API_KEY = 'sk-config-test'
  try {
    return await body()
  } finally {
    if (prior === undefined) delete process.env.OPENAI_API_KEY
    else process.env.OPENAI_API_KEY = prior
  }
}
const load = (config: Record<string, unknown>) => withDefaultKey(() => loadWithLlm(OpenAIProvider, config))
const refusal = (config: Record<string, unknown>) => configRefusal(OpenAIProvider, config)

describe('plugin', () => {
  it('serves its models through ctx.llm with defaults filled in, and stops serving them when disposed', async () => {
    const { ctx, fiber } = await load({ models: ['gpt-x', 'gpt-y'] })
    expect(ctx.llm.models()).toEqual(['gpt-x', 'gpt-y'])
    expect(ctx.llm.resolve('gpt-x').provider).toBe('openai')
    expect(ctx.llm.toolUpdateMode('gpt-x')).toBe('none')
    expect(fiber.config).toMatchObject({ baseURL: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', maxRetries: 0, headers: {} })
    await fiber.dispose()
    expect(() => ctx.llm.resolve('gpt-x')).toThrow(LlmError)
  })
})

describe('wrong config values are refused with the key named', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['baseURL not a URL', { baseURL: 'api.deepseek.com', models: ['m'] }, /baseURL must be an http\(s\) URL, got "api\.deepseek\.com"/],
    ['baseURL not http', { baseURL: 'ftp://example.com', models: ['m'] }, /baseURL must be an http\(s\) URL/],
    ['baseURL not a string', { baseURL: 42, models: ['m'] }, /baseURL/],
    ['apiKeyEnv not a name', { apiKeyEnv: 'MY KEY', models: ['m'] }, /apiKeyEnv must be the NAME of an environment variable/],
    ['apiKeyEnv not a string', { apiKeyEnv: 7, models: ['m'] }, /apiKeyEnv/],
    ['models missing', {}, /models must list at least one model id/],
    ['models empty', { models: [] }, /models must list at least one model id/],
    ['models not an array', { models: 'deepseek-chat' }, /models/],
    ['model id empty', { models: [''] }, /model ids must be non-empty strings, got ""/],
    ['model listed twice', { models: ['a', 'a'] }, /model "a" is listed twice/],
    ['model entry listed twice', { models: ['a', { id: 'a', contextWindow: 8000 }] }, /model "a" is listed twice/],
    ['contextWindow zero', { models: [{ id: 'a', contextWindow: 0 }] }, /model "a" has contextWindow 0; it must be a whole number of tokens >= 1/],
    ['contextWindow a string', { models: [{ id: 'a', contextWindow: 'big' }] }, /models/],
    ['maxRetries negative', { models: ['m'], maxRetries: -1 }, /maxRetries/],
    ['maxRetries a string', { models: ['m'], maxRetries: 'twice' }, /maxRetries/],
    ['timeoutMs zero', { models: ['m'], timeoutMs: 0 }, /timeoutMs/],
    ['idleTimeoutMs zero', { models: ['m'], idleTimeoutMs: 0 }, /idleTimeoutMs/],
    ['idleTimeoutMs a string', { models: ['m'], idleTimeoutMs: '5s' }, /idleTimeoutMs/],
    ['headers with a credential', { models: ['m'], headers: { Authorization: 'Bearer x' } }, /headers must not carry credentials \("Authorization"\)/],
    ['toolUpdate unknown', { models: [{ id: 'a', toolUpdate: 'sometimes' }] }, /models/],
    ['toolUpdateBeta with a line break', { models: ['m'], toolUpdateBeta: 'a\nb' }, /toolUpdateBeta must be a header value of visible ASCII characters, got "a\\nb"/],
    ['toolUpdateBetaHeader with a space', { models: ['m'], toolUpdateBetaHeader: 'tool changes' }, /toolUpdateBetaHeader must be an HTTP header name .*got "tool changes"/],
    ['toolUpdateBetaHeader not a string', { models: ['m'], toolUpdateBetaHeader: 3 }, /toolUpdateBetaHeader/],
    ['header value not a string', { models: ['m'], headers: { 'x-a': 1 } }, /headers/],
  ]
  for (const [name, config, message] of cases) {
    it(name, async () => {
      expect(await refusal(config)).toMatch(message)
    })
  }

  it('defaults to a 120 s header timeout and a 300 s idle timeout between streamed events', () => {
    expect(Config({ models: ['m'] } as never)).toMatchObject({ timeoutMs: 120_000, idleTimeoutMs: 300_000 })
    expect(resolveConfig({ models: ['m'] })).toMatchObject({ timeoutMs: 120_000, idleTimeoutMs: 300_000 })
  })

  it('refuses a model another adapter already serves', async () => {
    const { ctx } = await load({ models: ['shared'] })
    await expect(withDefaultKey(async () => ctx.plugin(OpenAIProvider, { models: ['shared'] } as OpenAIConfig))).rejects.toThrow(/model "shared" is already served/)
  })

  it('validates the same way when the adapter is built without Cordis', () => {
    expect(() => createOpenAIAdapter({ models: [] })).toThrow(HttpAdapterError)
    expect(createOpenAIAdapter({ models: ['m'] }).models).toEqual(['m'])
    expect(() => createOpenAIAdapter({ models: [{ id: 'a', contextWindow: 1.5 }] }))
      .toThrow('model "a" has contextWindow 1.5; it must be a whole number of tokens >= 1')
  })

  it('refuses an unknown toolUpdate without Cordis, listing the valid modes', () => {
    expect(() => createOpenAIAdapter({ models: [{ id: 'a', toolUpdate: 'sometimes' as never }] }))
      .toThrow('model "a" has toolUpdate "sometimes"; valid: none, addition-only, in-history')
  })

  it('declares addition-only for deepseek-flash and no mode (none) for other entries unless configured', async () => {
    const { ctx } = await load({ models: ['deepseek-flash', 'gpt-4o', { id: 'local', toolUpdate: 'in-history' }, { id: 'deepseek-flash-x' }] })
    expect(ctx.llm.toolUpdateMode('deepseek-flash')).toBe('addition-only')
    expect(ctx.llm.toolUpdateMode('gpt-4o')).toBe('none')
    expect(ctx.llm.toolUpdateMode('local')).toBe('in-history')
    expect(ctx.llm.toolUpdateMode('deepseek-flash-x')).toBe('none')
    const configured = createOpenAIAdapter({ models: [{ id: 'deepseek-flash', toolUpdate: 'none' }] }).toolUpdate as (model: string) => string
    expect(configured('deepseek-flash')).toBe('none')
  })

  it('declares each model\'s context window, 128000 tokens by default', async () => {
    const { ctx } = await load({ models: ['plain', { id: 'small', contextWindow: 8192 }] })
    expect(ctx.llm.contextWindow('plain')).toBe(128_000)
    expect(ctx.llm.contextWindow('small')).toBe(8192)
  })
})
