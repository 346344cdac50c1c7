import { describe, expect, it } from 'vitest'
import type { HttpWire } from './http-wire.ts'
import { Context } from 'cordis'
import LlmRuntime from 'dsh-llm'
import { fakeApiKey } from './fake-key.ts'
import { configRefusal } from './plugin.ts'

/** Endpoints and the profile each resolves to by its host. */
const HOSTS: [string, string][] = [
  ['https://api.anthropic.com', 'anthropic'],
  ['https://api.deepseek.com', 'deepseek'],
  ['https://api.deepseek.com/anthropic', 'deepseek'],
  ['https://api.openai.com/v1', 'openai'],
  ['https://dashscope.aliyuncs.com/compatible-mode/v1', 'dashscope'],
  ['https://dashscope-intl.aliyuncs.com/compatible-mode/v1', 'dashscope'],
  ['http://127.0.0.1:8080/v1', 'generic'],
  ['https://openrouter.example/api', 'generic'],
]

/**
 * The provider-profile checks of the HTTP contract: every entry resolves to a profile (its own `provider`,
 * the adapter's, else the endpoint's host), and a tool-update mode or a cache lifetime the profile does not
 * take is refused when the adapter is built, in one line naming the model, the value and why.
 */
export function profileCases(wire: HttpWire): void {
  const profileOf = (config: object, model = 'm') => wire.create(config).cachePolicy!(model)!.profile.id

  describe('provider profiles', () => {
    it.each(HOSTS)('resolves %s to the %s profile', (baseURL, profile) => {
      expect(profileOf({ baseURL, models: ['m'] })).toBe(profile)
    })

    it('takes the entry\'s provider over the adapter\'s, and the adapter\'s over the host', () => {
      const adapter = wire.create({ baseURL: 'https://api.openai.com/v1', provider: 'dashscope', models: ['a', { id: 'b', provider: 'deepseek' }] })
      expect(adapter.cachePolicy!('a')!.profile.id).toBe('dashscope')
      expect(adapter.cachePolicy!('b')!.profile.id).toBe('deepseek')
    })

    it('refuses tool-update blocks on a profile whose wire has none, naming the model, the mode and why', () => {
      expect(() => wire.create({ baseURL: 'https://api.openai.com/v1', models: [{ id: 'gpt-x', toolUpdate: 'addition-only' }] })).toThrow(
        `${wire.packageName}: model "gpt-x" has toolUpdate "addition-only", but the openai profile does not accept it: `
        + "OpenAI's Chat Completions API takes no tool_addition blocks and no defer_loading declarations; valid: none, append",
      )
      expect(() => wire.create({ baseURL: 'http://127.0.0.1:1', models: [{ id: 'local', toolUpdate: 'addition-only' }] }))
        .toThrow(/model "local" has toolUpdate "addition-only", but the generic profile does not accept it: .*set provider: deepseek on an endpoint that does; valid: none, append$/)
    })

    it('takes the tool-change modes on the Anthropic models that take the blocks, append on the others (the entry may say otherwise), said once at boot', async () => {
      const key = fakeApiKey('DSH_PROFILE_KEY', 'sk-profile-')
      const ctx = new Context()
      const warned: string[] = []
      ctx.logger.exporter({ export: (message) => { if (message.type === 'warn') warned.push(String(message.args[0])) } })
      await ctx.plugin(LlmRuntime)
      const fiber = await ctx.plugin(wire.plugin, { baseURL: 'https://api.anthropic.com', apiKeyEnv: key.name, models: [
        { id: 'claude-opus-5-5', toolUpdate: 'in-history' }, { id: 'claude-sonnet-5', toolUpdate: 'addition-only' },
        { id: 'proxy-model', toolUpdate: 'addition-only', toolChanges: true }, { id: 'claude-haiku-5-5', toolUpdate: 'addition-only', toolChanges: false },
      ] })
      key.cleanup()
      const adapter = ctx.llm.resolve('claude-opus-5-5')
      await fiber.dispose()
      const declare = adapter.toolUpdate as (model: string) => string
      expect(['claude-opus-5-5', 'claude-sonnet-5', 'proxy-model', 'claude-haiku-5-5'].map(declare)).toEqual(['in-history', 'append', 'addition-only', 'append'])
      expect(warned).toEqual([
        `${wire.packageName}: model "claude-sonnet-5" asks for toolUpdate "addition-only", but it does not take tool_addition / tool_removal blocks: `
        + 'Anthropic documents mid-conversation tool changes for Claude Opus 4.8, Opus 5, Opus 5.5, Sonnet 5.5, Haiku 5.5, Fable 5, Fable 5.1, Mythos 5 and Mythos 5.1 only '
        + '(set toolChanges: true on the entry to send them anyway); it uses append instead',
        `${wire.packageName}: model "claude-haiku-5-5" asks for toolUpdate "addition-only", but it does not take tool_addition / tool_removal blocks: its entry sets toolChanges: false; it uses append instead`,
      ])
      expect(() => wire.create({ models: [{ id: 'm', toolChanges: 'yes' }] })).toThrow(`${wire.packageName}: model "m" has toolChanges "yes"; it must be true or false`)
    })

    it('takes every mode on the deepseek profile', () => {
      for (const mode of ['none', 'append', 'addition-only', 'in-history']) {
        expect(wire.create({ provider: 'deepseek', models: [{ id: 'd', toolUpdate: mode }] }).models).toEqual(['d'])
      }
    })

    it('gives an entry that sets no mode one its profile takes', () => {
      for (const [baseURL] of HOSTS) {
        const adapter = wire.create({ baseURL, models: ['deepseek-flash', 'other'] })
        const declare = adapter.toolUpdate as (model: string) => string
        const modes = ['deepseek-flash', 'other'].map(declare)
        const accepted = adapter.cachePolicy!('other')!.profile.toolUpdates as readonly string[]
        for (const mode of modes) expect(accepted).toContain(mode)
      }
    })

    it('asks for the lifetime the entry names, the profile\'s default otherwise, and refuses one the profile lacks', () => {
      const adapter = wire.create({ baseURL: 'https://api.anthropic.com', models: ['a', { id: 'b', cacheTtl: '1h' }] })
      expect(adapter.cachePolicy!('a')!.ttl).toEqual({ name: '5m', seconds: 300, refreshedOnHit: true })
      expect(adapter.cachePolicy!('b')!.ttl).toEqual({ name: '1h', seconds: 3600, refreshedOnHit: true })
      expect(() => wire.create({ baseURL: 'https://api.anthropic.com', models: [{ id: 'c', cacheTtl: '24h' }] }))
        .toThrow(`${wire.packageName}: model "c" has cacheTtl "24h", which is not a lifetime of the anthropic profile; valid: 5m, 1h`)
      expect(() => wire.create({ baseURL: 'https://api.deepseek.com', models: [{ id: 'd', cacheTtl: '1h' }] }))
        .toThrow('cacheTtl "1h", which is not a lifetime of the deepseek profile; it offers no choice of lifetime, so leave cacheTtl out')
    })

    it('states the minimum cacheable length of each model', () => {
      const adapter = wire.create({ baseURL: 'https://api.anthropic.com', models: ['claude-sonnet-4-5', 'claude-haiku-4-5'] })
      expect(adapter.cachePolicy!('claude-sonnet-4-5')!.minimumTokens).toBe(1024)
      expect(adapter.cachePolicy!('claude-haiku-4-5')!.minimumTokens).toBe(4096)
    })

    it.each([
      ['an adapter provider that is no profile', { provider: 'azure', models: ['m'] }, /provider/],
      ['an entry provider that is no profile', { models: [{ id: 'm', provider: 'azure' }] }, /provider/],
      ['a cacheTtl that is not a string', { models: [{ id: 'm', cacheTtl: 5 }] }, /cacheTtl/],
      ['a toolChanges that is not a boolean', { models: [{ id: 'm', toolChanges: 'yes' }] }, /toolChanges/],
    ])('refuses %s through Cordis, naming the key', async (_, config, message) => {
      expect(await configRefusal(wire.plugin, config)).toMatch(message)
    })

    it('refuses an unknown provider without Cordis too, listing the profiles', () => {
      expect(() => wire.create({ provider: 'azure', models: ['m'] }))
        .toThrow(`${wire.packageName}: provider "azure" is not a profile; valid: anthropic, openai, deepseek, dashscope, generic`)
      expect(() => wire.create({ models: [{ id: 'm', provider: 'azure' }] }))
        .toThrow(`${wire.packageName}: model "m" has provider "azure", which is not a profile; valid: anthropic, openai, deepseek, dashscope, generic`)
    })
  })
}
