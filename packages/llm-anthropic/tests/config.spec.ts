import { LlmError } from 'dsh-llm'
import { configRefusal, drainStream, loadWithLlm, sampleRequest, streamError } from 'dsh-llm/testing'
import { describe, expect, it } from 'vitest'
import AnthropicProvider, { AnthropicAdapterError, Config, createAnthropicAdapter, resolveConfig, type AnthropicConfig } from '../src/index.ts'
import { reply, sendError, sendEvents } from './emulator.ts'
import { setup } from './setup.ts'

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

  it('sends the configured extra headers', async () => {
    const h = await setup((_, res) => sendEvents(res, reply({ text: 'ok' })), { headers: { 'x-team': 'dsh' } })
    try {
      await drainStream(h.ctx, sampleRequest())
      expect(h.server.requests[0].headers['x-team']).toBe('dsh')
    } finally {
      await h.teardown()
    }
  })

  it('keeps a path in baseURL (DeepSeek serves the API under /anthropic)', async () => {
    const h = await setup((_, res) => sendEvents(res, reply({ text: 'ok' })))
    const h2 = await setup((_, res) => sendEvents(res, reply({ text: 'ok' })), { baseURL: `${h.server.origin}/anthropic` })
    try {
      await drainStream(h2.ctx, sampleRequest())
      expect(h.server.requests[0].url).toBe('/anthropic/v1/messages')
    } finally {
      await h.teardown()
      await h2.teardown()
    }
  })

  it('retries as often as maxRetries says', async () => {
    const h = await setup((_, res) => sendError(res, 500, 'api_error', 'busy', { 'retry-after-ms': '1' }), { maxRetries: 2 })
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('HTTP 500')
      expect(h.server.requests).toHaveLength(3)
    } finally {
      await h.teardown()
    }
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
    expect(() => createAnthropicAdapter({ models: [] })).toThrow(AnthropicAdapterError)
  })

  it('defaults to a 120 s header timeout and a 300 s idle timeout between streamed events', () => {
    expect(Config({ models: ['m'] } as never)).toMatchObject({ timeoutMs: 120_000, idleTimeoutMs: 300_000 })
    expect(resolveConfig({ models: ['m'] })).toMatchObject({ timeoutMs: 120_000, idleTimeoutMs: 300_000 })
  })

  it('does not print an API key pasted into apiKeyEnv', async () => {
    const message = await refusal({ apiKeyEnv: 'sk-ant-api03-abcdef0123456789', models: ['m'] })
    expect(message).not.toContain('sk-ant-api03-abcdef0123456789')
  })
})
