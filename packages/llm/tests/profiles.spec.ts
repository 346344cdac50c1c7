import { describe, expect, it } from 'vitest'
import { PROFILES, PROVIDER_IDS, cachePolicy } from '../src/index.ts'
import { providerOfEndpoint, toolUpdateRefusal } from '../src/profiles/index.ts'
import { isGpt56OrLater } from '../src/profiles/model-breakpoints.ts'
import { fakeAdapter, setup } from './setup.ts'

describe('provider profiles', () => {
  it('maps endpoint hosts to providers, case-insensitively, and anything else to generic', () => {
    expect(providerOfEndpoint('https://API.Anthropic.com')).toBe('anthropic')
    expect(providerOfEndpoint('https://api.deepseek.com/anthropic')).toBe('deepseek')
    expect(providerOfEndpoint('https://dashscope-us.aliyuncs.com/compatible-mode/v1')).toBe('dashscope')
    expect(providerOfEndpoint('https://api.openai.com.evil.example/v1')).toBe('generic')
    expect(providerOfEndpoint('https://notdashscope.aliyuncs.com')).toBe('generic')
    expect(providerOfEndpoint('not a url')).toBe('generic')
  })

  it('lists every profile once, each stating its facts and the modes its wire takes', () => {
    expect(PROVIDER_IDS).toEqual(Object.keys(PROFILES))
    for (const id of PROVIDER_IDS) {
      const { cache, toolUpdates, usageFields } = PROFILES[id]
      expect(toolUpdates).toContain('none')
      expect(cache.ttls.length).toBeGreaterThan(0)
      expect(cache.ttlChoices.every((name) => cache.ttls.some((ttl) => ttl.name === name))).toBe(true)
      expect(cache.unitTokens).toBeGreaterThanOrEqual(1)
      expect(usageFields.length).toBeGreaterThan(0)
      if (cache.mechanism === 'explicit-breakpoints') expect(cache.maxBreakpoints).toBe(4)
      if (id !== 'generic') expect(PROFILES[id].sources.length).toBeGreaterThan(0)
    }
    // tool-update blocks exist on DeepSeek's wire and on Anthropic's own (for some models only)
    expect(PROVIDER_IDS.filter((id) => PROFILES[id].toolUpdates.includes('addition-only'))).toEqual(['anthropic', 'deepseek'])
    expect(PROVIDER_IDS.filter((id) => PROFILES[id].toolChanges)).toEqual(['anthropic'])
  })

  it('names the Claude models that take tool-change blocks, with or without a date suffix, and no other', () => {
    const takes = (model: string) => PROFILES.anthropic.toolChanges!.models.test(model)
    for (const model of ['claude-opus-4-8', 'claude-opus-5', 'claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5', 'claude-fable-5', 'claude-fable-5-1', 'claude-mythos-5', 'claude-mythos-5-1', 'claude-opus-4-8-20260801']) {
      expect(takes(model), model).toBe(true)
    }
    for (const model of ['claude-sonnet-5', 'claude-sonnet-4-5', 'claude-opus-4-7', 'claude-haiku-4-5', 'claude-opus-5-5-preview', 'gpt-5']) expect(takes(model), model).toBe(false)
    expect(PROFILES.anthropic.defaultToolUpdate).toBe('append')
    expect(PROFILES.anthropic.sources.map((source) => source.url)).toContain('https://platform.claude.com/docs/en/build-with-claude/mid-conversation-system-messages')
  })

  it('says why a profile refuses a mode, and nothing when it takes it', () => {
    expect(toolUpdateRefusal(PROFILES.deepseek, 'in-history')).toBeUndefined()
    expect(toolUpdateRefusal(PROFILES.dashscope, 'addition-only')).toBe(
      "the dashscope profile does not accept it: DashScope's OpenAI-compatible API takes no tool_addition blocks and no defer_loading declarations; valid: none, append",
    )
  })

  it('gives the policy of a model its default lifetime and its minimum', () => {
    expect(cachePolicy(PROFILES.openai, 'gpt-4o')).toMatchObject({ ttl: { name: 'in-memory' }, minimumTokens: 1024 })
    expect(cachePolicy(PROFILES.openai, 'gpt-4o', '24h').ttl).toEqual({ name: '24h', seconds: 86_400, refreshedOnHit: true })
    expect(() => cachePolicy(PROFILES.generic, 'm', '5m')).toThrow('cacheTtl "5m", which is not a lifetime of the generic profile')
  })

  it('knows the openai models that take explicit breakpoints: GPT-5.6 and later, unless the entry says otherwise', () => {
    const taking = ['gpt-5.6', 'gpt-5.6-mini', 'gpt-5.10', 'gpt-6', 'gpt-6.1-pro-2027-01-01']
    const not = ['gpt-5.5', 'gpt-5', 'gpt-5-mini', 'gpt-4o', 'gpt-4.1', 'o3', 'chatgpt-5.6']
    expect(taking.filter(isGpt56OrLater)).toEqual(taking)
    expect(not.filter(isGpt56OrLater)).toEqual([])
    expect(cachePolicy(PROFILES.openai, 'gpt-5.6')).toMatchObject({ explicitBreakpoints: true, ttl: { name: '30m', seconds: 1800 } })
    expect(cachePolicy(PROFILES.openai, 'gpt-5.6', undefined, false).explicitBreakpoints).toBeUndefined()
    expect(cachePolicy(PROFILES.openai, 'gpt-4o', '30m', true).ttl.name).toBe('30m')
    expect(PROFILES.openai.cache.modelBreakpoints).toMatchObject({ maxBreakpoints: 4, lookbackBreakpoints: 80, ttlChoices: ['30m'] })
  })

  it('serves the generic policy for a model whose adapter declares none, and the adapter\'s otherwise', async () => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('plain', ['plain-m'], []).adapter)
    ctx.llm.register(fakeAdapter('own', ['own-m'], [], { cachePolicy: (model) => cachePolicy(PROFILES.anthropic, model, '1h') }).adapter)
    expect(ctx.llm.cachePolicy('plain-m').profile.id).toBe('generic')
    expect(ctx.llm.cachePolicy('own-m')).toMatchObject({ profile: { id: 'anthropic' }, ttl: { name: '1h' }, minimumTokens: 1024 })
    expect(() => ctx.llm.cachePolicy('nobody')).toThrow('unknown model "nobody"')
  })
})
