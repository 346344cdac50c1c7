import { describe, expect, it } from 'vitest'
import { LlmError } from 'dsh-llm'
import { HttpAdapterError } from 'dsh-llm/http'
import type { HttpWire } from './http-wire.ts'
import { configRefusal, loadWithLlm } from './plugin.ts'

/** Runs `body` with the variable `name` set to a placeholder key (a plugin refuses to start without its key). */
export async function withApiKey<T>(name: string, body: () => Promise<T>): Promise<T> {
  const prior = process.env[name]
  process.env[name] = 'sk-config-test'
  try {
    return await body()
  } finally {
    if (prior === undefined) delete process.env[name]
    else process.env[name] = prior
  }
}

/** A wrong value of a key every HTTP adapter shares, and what the refusal must say. */
const REFUSED: [string, Record<string, unknown>, RegExp][] = [
  ['baseURL not a URL', { baseURL: 'api.deepseek.com/anthropic', models: ['m'] }, /baseURL must be an http\(s\) URL, got "api\.deepseek\.com\/anthropic"/],
  ['baseURL not http', { baseURL: 'ftp://example.com', models: ['m'] }, /baseURL must be an http\(s\) URL/],
  ['baseURL a file URL', { baseURL: 'file:///tmp', models: ['m'] }, /baseURL must be an http\(s\) URL/],
  ['baseURL not a string', { baseURL: 42, models: ['m'] }, /baseURL/],
  ['apiKeyEnv not a name', { apiKeyEnv: 'MY KEY', models: ['m'] }, /apiKeyEnv must be the NAME of an environment variable/],
  ['apiKeyEnv a $-reference', { apiKeyEnv: '$ANTHROPIC_API_KEY', models: ['m'] }, /apiKeyEnv must be the NAME of an environment variable/],
  ['apiKeyEnv not a string', { apiKeyEnv: 7, models: ['m'] }, /apiKeyEnv/],
  ['models missing', {}, /models must list at least one model id/],
  ['models empty', { models: [] }, /models must list at least one model id/],
  ['models not an array', { models: 'deepseek-chat' }, /models/],
  ['model entry without id', { models: [{ toolUpdate: 'none' }] }, /models/],
  ['model id empty', { models: [''] }, /model ids must be non-empty strings, got ""/],
  ['model listed twice', { models: ['a', 'a'] }, /model "a" is listed twice/],
  ['model entry listed twice', { models: ['a', { id: 'a', contextWindow: 8000 }] }, /model "a" is listed twice/],
  ['toolUpdate unknown', { models: [{ id: 'a', toolUpdate: 'sometimes' }] }, /models/],
  ['contextWindow zero', { models: [{ id: 'a', contextWindow: 0 }] }, /model "a" has contextWindow 0; it must be a whole number of tokens >= 1/],
  ['contextWindow a string', { models: [{ id: 'a', contextWindow: 'big' }] }, /models/],
  ['maxRetries negative', { models: ['m'], maxRetries: -1 }, /maxRetries/],
  ['maxRetries a string', { models: ['m'], maxRetries: 'twice' }, /maxRetries/],
  ['timeoutMs zero', { models: ['m'], timeoutMs: 0 }, /timeoutMs/],
  ['idleTimeoutMs zero', { models: ['m'], idleTimeoutMs: 0 }, /idleTimeoutMs/],
  ['idleTimeoutMs a string', { models: ['m'], idleTimeoutMs: '5s' }, /idleTimeoutMs/],
  ['headers with a credential', { models: ['m'], headers: { Authorization: 'Bearer x' } }, /headers must not carry credentials \("Authorization"\)/],
  ['headers with an API key', { models: ['m'], headers: { 'X-Api-Key': 'k' } }, /headers must not carry credentials \("X-Api-Key"\)/],
  ['header value not a string', { models: ['m'], headers: { 'x-a': 1 } }, /headers/],
  ['toolUpdateBeta with a line break', { models: ['m'], toolUpdateBeta: 'a\nb' }, /toolUpdateBeta must be a header value of visible ASCII characters, got "a\\nb"/],
  ['toolUpdateBeta not a string', { models: ['m'], toolUpdateBeta: true }, /toolUpdateBeta/],
]

/**
 * The config checks of the HTTP contract, for the keys every HTTP adapter shares: each wrong value is
 * refused naming the key (through Cordis and without it), defaults, context windows, and a model served twice.
 */
export function httpConfigCases(wire: HttpWire): void {
  const load = (config: Record<string, unknown>) => {
    const key = wire.key()
    return loadWithLlm(wire.plugin, { apiKeyEnv: key.name, ...config }).finally(key.cleanup)
  }

  describe('config', () => {
    it.each(REFUSED)('refuses %s, naming the key', async (_, config, message) => {
      expect(await configRefusal(wire.plugin, config)).toMatch(message)
    })

    it('validates the same way when the adapter is built without Cordis, with HttpAdapterError', () => {
      expect(() => wire.create({ models: [] })).toThrow(HttpAdapterError)
      expect(() => wire.create({ models: [] })).toThrow(`${wire.packageName}: models must list at least one model id`)
      expect(wire.create({ models: ['m'] }).models).toEqual(['m'])
      expect(() => wire.create({ models: [{ id: 'a', contextWindow: 1.5 }] }))
        .toThrow('model "a" has contextWindow 1.5; it must be a whole number of tokens >= 1')
      expect(() => wire.create({ models: [{ id: 'a', toolUpdate: 'sometimes' }] }))
        .toThrow('model "a" has toolUpdate "sometimes"; valid: none, append, addition-only, in-history')
    })

    it('defaults to a 120 s header timeout and a 300 s idle timeout between streamed events', async () => {
      const { fiber } = await load({ models: ['m'] })
      expect(fiber.config).toMatchObject({ timeoutMs: 120_000, idleTimeoutMs: 300_000, maxRetries: 0, headers: {} })
      await fiber.dispose()
      expect(wire.resolveConfig({ models: ['m'] })).toMatchObject({ timeoutMs: 120_000, idleTimeoutMs: 300_000, maxRetries: 0, headers: {} })
    })

    it(`declares each model's context window, ${wire.contextWindow} tokens by default`, async () => {
      const { ctx } = await load({ models: ['plain', { id: 'small', contextWindow: 8192 }] })
      expect(ctx.llm.contextWindow('plain')).toBe(wire.contextWindow)
      expect(ctx.llm.contextWindow('small')).toBe(8192)
    })

    it('refuses a model another adapter already serves, and stops serving its models when disposed', async () => {
      const { ctx, fiber } = await load({ models: ['shared'] })
      const key = wire.key()
      try {
        await expect(ctx.plugin(wire.plugin, { apiKeyEnv: key.name, models: ['shared'] })).rejects.toThrow(/model "shared" is already served/)
      } finally {
        key.cleanup()
      }
      await fiber.dispose()
      expect(() => ctx.llm.resolve('shared')).toThrow(LlmError)
    })
  })
}
