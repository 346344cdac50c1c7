import { describe, expect, it } from 'vitest'
import { PROVIDER_REASONS, agreementOf, bothSides, knownProviderReason } from '../src/agreement.ts'
import type { BreakReason, CacheBreak } from '../src/types.ts'

const found = (...allReasons: BreakReason[]): CacheBreak => ({
  reason: allReasons[0]!, allReasons, previousCacheReadTokens: 9000, currentCacheReadTokens: 0, currentCacheWriteTokens: 9000, changedToolNames: [],
})
const verdict = (reason?: string, more: { missedTokens?: number; pending?: true } = {}) => ({ responseId: 'msg_1', ...reason && { reason }, ...more })

describe('the agreement of DSH\'s reason and the provider\'s', () => {
  it.each([
    [['model_changed'], 'model_changed', 'agree'],
    [['tools_schema_changed'], 'tools_changed', 'agree'],
    [['tools_order_changed'], 'tools_changed', 'agree'],
    [['cache_control_changed'], 'tools_changed', 'agree'],
    [['system_changed', 'no_breakpoint'], 'system_changed', 'agree'],
    [['ttl_expired'], 'previous_message_not_found', 'agree'],
    [['system_changed'], 'tools_changed', 'disagree'],
    [['system_changed'], 'speed_changed', 'disagree'],
    [['system_changed'], undefined, 'dsh-only'],
    [['provider_miss'], 'previous_message_not_found', 'provider-only'],
    [['likely_provider_ttl_or_eviction'], 'messages_changed', 'provider-only'],
    [['provider_miss'], 'speed_changed', 'provider-only'],
    [['provider_miss'], undefined, undefined],
    [['system_changed'], 'unavailable', undefined],
  ] as [BreakReason[], string | undefined, string | undefined][])('DSH %j, provider %s: %s', (dsh, provider, expected) => {
    expect(agreementOf(found(...dsh), verdict(provider))).toBe(expected)
  })

  it('has no value without a provider verdict, or while the provider is still comparing', () => {
    expect(agreementOf(found('system_changed'), undefined)).toBeUndefined()
    expect(agreementOf(found('system_changed'), verdict(undefined, { pending: true }))).toBeUndefined()
  })

  it('maps every reason of the SDK\'s CacheMissReason, and knows no other', () => {
    expect(Object.keys(PROVIDER_REASONS).sort()).toEqual(['messages_changed', 'model_changed', 'previous_message_not_found', 'system_changed', 'tools_changed', 'unavailable'])
    expect(knownProviderReason('speed_changed')).toBe(false)
  })

  it('says both sides in one line, an unknown reason named as such', () => {
    const item = { ...found('system_changed'), section: 'persona', offset: 120 }
    expect(bothSides(item, verdict('speed_changed', { missedTokens: 40 })))
      .toBe('DSH says system_changed (section persona, byte 120); the provider says speed_changed (unknown provider reason), 40 tokens missed')
    expect(bothSides({ ...found('tools_schema_changed'), changedToolNames: ['grep'] }, verdict()))
      .toBe('DSH says tools_schema_changed (tools grep); the provider says no divergence')
  })
})
