import { drainStream, sampleRequest, sampleTool, toolChanges } from 'dsh-llm-testing'
import { sendStream, textReply } from './wire-frames.ts'
import { describe, expect, it } from 'vitest'
import { chatWireBody, type OpenAIConfig } from '../src/index.ts'
import { promptCacheKey } from '../src/cache-planning.ts'
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

describe('explicit breakpoints on GPT-5.6 and later', () => {
  const on = (entry: object): Partial<OpenAIConfig> => ({ ...OPENAI, models: [{ id: 'gpt-5.6', ...entry }] as OpenAIConfig['models'] })
  const request = (model = 'gpt-5.6') => sampleRequest({ model, messages: [{ role: 'user', text: 'one' }, { role: 'assistant', text: 'x', toolCalls: [] }, { role: 'user', text: 'two' }] })
  const breakpoint = { mode: 'explicit' }

  it('marks the end of the stable prefix and the newest message, and asks for mode explicit without the deprecated retention', () => {
    const wire = body(request(), on({}))
    expect(wire.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'You are a test.', prompt_cache_breakpoint: breakpoint }] },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'x' },
      { role: 'user', content: [{ type: 'text', text: 'two', prompt_cache_breakpoint: breakpoint }] },
    ])
    expect(wire.prompt_cache_options).toEqual({ mode: 'explicit' })
    expect(wire.prompt_cache_key).toBe(promptCacheKey(request(), 'prefix'))
    expect('prompt_cache_retention' in wire).toBe(false)
  })

  it('sends cacheTtl 30m as prompt_cache_options.ttl and refuses the retention lifetimes in one line', () => {
    expect(body(request(), on({ cacheTtl: '30m' })).prompt_cache_options).toEqual({ mode: 'explicit', ttl: '30m' })
    expect(() => chatWireBody(on({ cacheTtl: '24h' }), request())).toThrow(
      'dsh-llm-openai: model "gpt-5.6" has cacheTtl "24h", which is not a lifetime of the openai profile\'s breakpoint models (GPT-5.6 and later); valid: 30m',
    )
    expect(() => chatWireBody({ ...OPENAI, models: [{ id: 'gpt-5.5', cacheTtl: '30m' }] }, request('gpt-5.5'))).toThrow(
      'dsh-llm-openai: model "gpt-5.5" has cacheTtl "30m", which is not a lifetime of the openai profile; valid: in-memory, 24h',
    )
  })

  it('marks a tool result when it is the newest message, and later GPT models too', () => {
    const wire = body(sampleRequest({ model: 'gpt-6-mini', messages: [
      { role: 'user', text: 'read' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'read', arguments: {} }] },
      { role: 'tool', id: 'c1', name: 'read', output: 'done', isError: false },
    ] }), { ...OPENAI, models: ['gpt-6-mini'] })
    expect(wire.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'done', prompt_cache_breakpoint: breakpoint }] })
  })

  it('leaves older models as they were: no breakpoint, retention spelled as the API takes it', () => {
    for (const model of ['gpt-5.5', 'gpt-4o', 'gpt-5']) {
      const text = JSON.stringify(body(request(model), { ...OPENAI, models: [model] }))
      expect(text).not.toMatch(/prompt_cache_breakpoint|prompt_cache_options/)
    }
    expect(body(request('gpt-5.5'), { ...OPENAI, models: [{ id: 'gpt-5.5', cacheTtl: 'in-memory' }] }).prompt_cache_retention).toBe('in_memory')
  })

  it('follows the entry\'s cacheBreakpoints over the model id', () => {
    expect(body(request('gpt-4o'), { ...OPENAI, models: [{ id: 'gpt-4o', cacheBreakpoints: true }] }).prompt_cache_options).toEqual({ mode: 'explicit' })
    expect('prompt_cache_options' in body(request(), on({ cacheBreakpoints: false }))).toBe(false)
  })

  it('refuses a cacheBreakpoints that is no boolean, or on a profile without per-model breakpoints', () => {
    expect(() => chatWireBody(on({ cacheBreakpoints: 'yes' }), request())).toThrow(
      'dsh-llm-openai: model "gpt-5.6" has cacheBreakpoints "yes"; it must be true or false',
    )
    expect(() => chatWireBody({ baseURL: 'https://api.deepseek.com', models: [{ id: 'gpt-5.6', cacheBreakpoints: true }] }, request())).toThrow(
      'dsh-llm-openai: model "gpt-5.6" has cacheBreakpoints true, but the deepseek profile has no per-model breakpoints; only entries on the openai profile take the key',
    )
  })

  it('builds the same bytes from the same request', () => {
    expect(JSON.stringify(body(request(), on({ cacheTtl: '30m' })))).toBe(JSON.stringify(body(request(), on({ cacheTtl: '30m' }))))
  })

  it('reads prompt_tokens_details.cache_write_tokens into cacheWriteTokens', async () => {
    const usage = { prompt_tokens: 3000, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 2048, cache_write_tokens: 900 } }
    const h = await setup((_, res) => sendStream(res, textReply('ok', usage)), { provider: 'openai' })
    const events = await drainStream(h.ctx, sampleRequest())
    await h.teardown()
    expect(events.find((event) => event.type === 'usage')).toMatchObject({ usage: { inputTokens: 3000, cacheReadTokens: 2048, cacheWriteTokens: 900 } })
  })
})
