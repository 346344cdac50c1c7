import { drainStream, sampleRequest, sampleTool, toolChanges } from 'dsh-llm-testing'
import { sendStream, textReply } from 'dsh-llm-testing/openai'
import { describe, expect, it } from 'vitest'
import { chatWireBody, promptCacheKey, type OpenAIConfig } from '../src/index.ts'
import { setup } from './setup.ts'

const OPENAI: Partial<OpenAIConfig> = { baseURL: 'https://api.openai.com/v1', models: ['test-model'] }
const body = (options = sampleRequest(), config: Partial<OpenAIConfig> = OPENAI): any => chatWireBody(config, options).body

describe('prompt_cache_key on the openai profile', () => {
  it('is a hash of the canonical tools and the system prompt by default, the same for every session with that prefix', () => {
    const one = body(sampleRequest({ messages: [{ role: 'user', text: 'first session' }] }))
    const two = body(sampleRequest({ messages: [{ role: 'user', text: 'another session' }] }))
    expect(one.prompt_cache_key).toMatch(/^dsh-[0-9a-f]{32}$/)
    expect(two.prompt_cache_key).toBe(one.prompt_cache_key)
    expect(body(sampleRequest({ system: 'Another persona.' })).prompt_cache_key).not.toBe(one.prompt_cache_key)
    expect(body(sampleRequest({ tools: [sampleTool('read')] })).prompt_cache_key).not.toBe(one.prompt_cache_key)
  })

  it('stays the same when a tool joins mid-session: it hashes the sequence\'s first declarations', () => {
    const before = body(toolChanges.beforeAddition('test-model'))
    const after = body(toolChanges.afterAddition('test-model'))
    expect(after.tools.map((tool: any) => tool.function.name)).toEqual(['read', 'write', 'grep'])
    expect(after.prompt_cache_key).toBe(before.prompt_cache_key)
  })

  it('adds the first user message in mode session, and is absent in mode off', () => {
    const session = { ...OPENAI, promptCacheKey: 'session' as const }
    const one = body(sampleRequest({ messages: [{ role: 'user', text: 'one' }] }), session)
    const later = body(sampleRequest({ messages: [{ role: 'user', text: 'one' }, { role: 'assistant', text: 'x', toolCalls: [] }, { role: 'user', text: 'two' }] }), session)
    const other = body(sampleRequest({ messages: [{ role: 'user', text: 'other' }] }), session)
    expect(later.prompt_cache_key).toBe(one.prompt_cache_key)
    expect(other.prompt_cache_key).not.toBe(one.prompt_cache_key)
    expect(one.prompt_cache_key).not.toBe(promptCacheKey(sampleRequest(), 'prefix'))
    expect('prompt_cache_key' in body(sampleRequest(), { ...OPENAI, promptCacheKey: 'off' })).toBe(false)
  })

  it('asks for prompt_cache_retention only when the entry names a cacheTtl', () => {
    expect('prompt_cache_retention' in body()).toBe(false)
    expect(body(sampleRequest(), { ...OPENAI, models: [{ id: 'test-model', cacheTtl: '24h' }] }).prompt_cache_retention).toBe('24h')
  })

  it('refuses a promptCacheKey that is no mode', () => {
    expect(() => chatWireBody({ ...OPENAI, promptCacheKey: 'always' as never }, sampleRequest()))
      .toThrow('dsh-llm-openai: promptCacheKey must be one of prefix, session, off, got "always"')
  })
})

describe('DashScope markers', () => {
  const DASHSCOPE: Partial<OpenAIConfig> = { baseURL: 'https://dashscope.aliyuncs.com/compatible-mode/v1', models: ['test-model'] }
  const mark = { type: 'ephemeral' }

  it('marks the system message and the newest message, as one text part each', () => {
    const wire = body(sampleRequest({ messages: [{ role: 'user', text: 'one' }, { role: 'assistant', text: 'x', toolCalls: [] }, { role: 'user', text: 'two' }] }), DASHSCOPE)
    expect(wire.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'You are a test.', cache_control: mark }] },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'x' },
      { role: 'user', content: [{ type: 'text', text: 'two', cache_control: mark }] },
    ])
    expect('prompt_cache_key' in wire).toBe(false)
  })

  it('marks a tool result when it is the newest message', () => {
    const wire = body(sampleRequest({ messages: [
      { role: 'user', text: 'read' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'read', arguments: {} }] },
      { role: 'tool', id: 'c1', name: 'read', output: 'done', isError: false },
    ] }), DASHSCOPE)
    expect(wire.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'done', cache_control: mark }] })
  })
})

describe('DeepSeek and generic endpoints', () => {
  it('get no cache field at all', () => {
    for (const baseURL of ['https://api.deepseek.com', 'http://127.0.0.1:1/v1']) {
      const text = JSON.stringify(body(sampleRequest(), { baseURL, models: ['test-model'] }))
      expect(text).not.toMatch(/cache_control|prompt_cache/)
    }
  })
})

describe('usage by profile', () => {
  it('reads DashScope\'s native usage record on the dashscope profile', async () => {
    const usage = { input_tokens: 3019, output_tokens: 104, prompt_tokens_details: { cached_tokens: 2048, cache_creation_input_tokens: 512 } }
    for (const [provider, expected] of [['dashscope', 3019], ['generic', 2560]] as const) {
      const h = await setup((_, res) => sendStream(res, textReply('ok', usage)), { provider })
      const events = await drainStream(h.ctx, sampleRequest())
      await h.teardown()
      expect(events.find((event) => event.type === 'usage')).toMatchObject({ usage: { inputTokens: expected, cacheReadTokens: 2048, cacheWriteTokens: 512 } })
    }
  })
})

describe('the key on the wire', () => {
  it('reaches an openai-profile server in the request body', async () => {
    const h = await setup((_, res) => sendStream(res, textReply('ok')), { provider: 'openai' })
    await drainStream(h.ctx, sampleRequest())
    await h.teardown()
    expect(JSON.parse(h.server.requests[0]!.body).prompt_cache_key).toBe(promptCacheKey(sampleRequest(), 'prefix'))
  })
})
