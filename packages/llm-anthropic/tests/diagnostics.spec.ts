import { describe, expect, it } from 'vitest'
import { sampleRequest } from 'dsh-llm-testing'
import { messagesWireBody } from '../src/index.ts'
import { createAnthropicAdapter } from '../src/adapter.ts'
import { readVerdict } from '../src/stream-reader.ts'

const BASE = 'http://127.0.0.1:9'
const body = (entry: Record<string, unknown>, previousResponseId?: string | null) => messagesWireBody(
  { baseURL: BASE, models: [{ id: 'test-model', ...entry }] }, sampleRequest({ model: 'test-model', ...previousResponseId !== undefined && { previousResponseId } }),
).body as { diagnostics?: unknown }

describe('Anthropic cache diagnostics on the wire', () => {
  it('names the previous response on the anthropic profile, null on a sequence\'s first request', () => {
    expect(body({ provider: 'anthropic' }, 'msg_1').diagnostics).toEqual({ previous_message_id: 'msg_1' })
    expect(body({ provider: 'anthropic' }, null).diagnostics).toEqual({ previous_message_id: null })
  })

  it('is left out when the entry turns it off, the caller keeps no sequence, or the profile is another', () => {
    expect(body({ provider: 'anthropic', diagnostics: false }, 'msg_1')).not.toHaveProperty('diagnostics')
    expect(body({ provider: 'anthropic' })).not.toHaveProperty('diagnostics')
    expect(body({ provider: 'deepseek' }, 'msg_1')).not.toHaveProperty('diagnostics')
    expect(body({}, 'msg_1')).not.toHaveProperty('diagnostics')
  })

  it('refuses a diagnostics key that is no boolean, or that asks for it on a profile without it, naming the model and the key', () => {
    expect(() => createAnthropicAdapter({ baseURL: BASE, models: [{ id: 'm', provider: 'anthropic', diagnostics: 'yes' as never }] }))
      .toThrow('dsh-llm-anthropic: model "m" has diagnostics "yes"; it must be true or false')
    expect(() => createAnthropicAdapter({ baseURL: BASE, models: [{ id: 'm', provider: 'generic', diagnostics: true }] }))
      .toThrow("model \"m\" has diagnostics true, but the generic profile's provider documents no cache diagnostics")
  })
})

describe('the verdict read from a response message', () => {
  it.each([
    [{ id: 'msg_2', diagnostics: null }, { responseId: 'msg_2' }],
    [{ id: 'msg_2', diagnostics: { cache_miss_reason: null } }, { responseId: 'msg_2', pending: true }],
    [{ id: 'msg_2', diagnostics: { cache_miss_reason: { type: 'system_changed', cache_missed_input_tokens: 812 } } }, { responseId: 'msg_2', reason: 'system_changed', missedTokens: 812 }],
    [{ id: 'msg_2', diagnostics: { cache_miss_reason: { type: 'previous_message_not_found' } } }, { responseId: 'msg_2', reason: 'previous_message_not_found' }],
    [{ id: 'msg_2', diagnostics: { cache_miss_reason: { type: 'speed_changed', cache_missed_input_tokens: 3 } } }, { responseId: 'msg_2', reason: 'speed_changed', missedTokens: 3 }],
    [{ id: 'msg_2', diagnostics: { cache_miss_reason: 42 } }, { responseId: 'msg_2', reason: '42' }],
    [{ diagnostics: null }, undefined],
  ])('%j → %j', (message, expected) => {
    expect(readVerdict(message)).toEqual(expected)
  })
})
