import { drainStream, joinText, sampleRequest, sampleTool } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import { chunk, sendStream, textReply, usageChunk } from './wire-frames.ts'
import { setup } from './setup.ts'

describe('text streaming', () => {
  it('streams the deltas and sends the system prompt first, then the history', async () => {
    const h = await setup((_, res) => sendStream(res, textReply('Hello there, world')))
    try {
      const events = await drainStream(h.ctx, sampleRequest({
        messages: [
          { role: 'user', text: 'read a.txt' },
          { role: 'assistant', text: 'reading', toolCalls: [{ id: 'call_1', name: 'read', arguments: { input: 'a.txt' } }] },
          { role: 'tool', id: 'call_1', name: 'read', output: 'contents', isError: false },
          { role: 'assistant', text: 'done', toolCalls: [] },
          { role: 'user', text: 'thanks' },
        ],
        maxTokens: 64,
      }))
      expect(joinText(events)).toBe('Hello there, world')
      expect(events.filter((event) => event.type === 'text').length).toBeGreaterThan(1)
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' })

      const [recorded] = h.server.requests
      expect(recorded.method).toBe('POST')
      expect(recorded.url).toBe('/v1/chat/completions')
      expect(recorded.headers.authorization).toBe(`Bearer ${h.key.value}`)
      expect(JSON.parse(recorded.body)).toEqual({
        model: 'test-model',
        messages: [
          { role: 'system', content: 'You are a test.' },
          { role: 'user', content: 'read a.txt' },
          {
            role: 'assistant',
            content: 'reading',
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"input":"a.txt"}' } }],
          },
          { role: 'tool', tool_call_id: 'call_1', content: 'contents' },
          { role: 'assistant', content: 'done' },
          { role: 'user', content: 'thanks' },
        ],
        tools: [
          { type: 'function', function: { name: 'read', description: 'the read tool', parameters: sampleTool('read').parameters } },
          { type: 'function', function: { name: 'write', description: 'the write tool', parameters: sampleTool('write').parameters } },
        ],
        max_tokens: 64,
        stream: true,
        stream_options: { include_usage: true },
      })
    } finally {
      await h.teardown()
    }
  })

  it('omits an empty system prompt and an empty tool list', async () => {
    const h = await setup((_, res) => sendStream(res, textReply('ok')))
    try {
      await drainStream(h.ctx, sampleRequest({ system: '', tools: [] }))
      const [body] = h.server.bodies()
      expect(body.messages).toEqual([{ role: 'user', content: 'hello' }])
      expect('tools' in body).toBe(false)
    } finally {
      await h.teardown()
    }
  })

  it('serializes the same request to the same bytes', async () => {
    const h = await setup((_, res) => sendStream(res, textReply('ok')))
    try {
      await drainStream(h.ctx, sampleRequest())
      await drainStream(h.ctx, sampleRequest())
      expect(h.server.requests[1].body).toBe(h.server.requests[0].body)
    } finally {
      await h.teardown()
    }
  })

  it('maps finish_reason length to max_tokens', async () => {
    const h = await setup((_, res) => sendStream(res, [chunk({ content: 'cut' }), chunk({}, 'length')]))
    try {
      const events = await drainStream(h.ctx, sampleRequest())
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'max_tokens' })
    } finally {
      await h.teardown()
    }
  })
})

describe('tool-call streaming', () => {
  it('assembles interleaved fragments of parallel calls by index', async () => {
    const h = await setup((_, res) => sendStream(res, [
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'write', arguments: '{"in' } }] }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read', arguments: '{"inp' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: 'put":"b"}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ut":"a"}' } }] }),
      chunk({}, 'tool_calls'),
    ]))
    try {
      const calls = (await drainStream(h.ctx, sampleRequest())).flatMap((event) => event.type === 'tool-call' ? [event.call] : [])
      expect(calls).toEqual([
        { id: 'call_a', name: 'read', arguments: { input: 'a' } },
        { id: 'call_b', name: 'write', arguments: { input: 'b' } },
      ])
    } finally {
      await h.teardown()
    }
  })
})

describe('usage normalization', () => {
  const cases = [
    {
      name: 'OpenAI cached_tokens',
      wire: { prompt_tokens: 1200, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 1024 } },
      usage: { inputTokens: 1200, outputTokens: 30, cacheReadTokens: 1024, cacheWriteTokens: 0 },
    },
    {
      name: 'DeepSeek hit/miss beside prompt_tokens',
      wire: { prompt_tokens: 900, completion_tokens: 12, prompt_cache_hit_tokens: 640, prompt_cache_miss_tokens: 260 },
      usage: { inputTokens: 900, outputTokens: 12, cacheReadTokens: 640, cacheWriteTokens: 0 },
    },
    {
      name: 'hit/miss only',
      wire: { completion_tokens: 5, prompt_cache_hit_tokens: 300, prompt_cache_miss_tokens: 45 },
      usage: { inputTokens: 345, outputTokens: 5, cacheReadTokens: 300, cacheWriteTokens: 0 },
    },
    {
      name: 'DashScope explicit cache creation',
      wire: { prompt_tokens: 1618, completion_tokens: 37, prompt_tokens_details: { cached_tokens: 0, cache_creation_input_tokens: 1500, cache_type: 'ephemeral' } },
      usage: { inputTokens: 1618, outputTokens: 37, cacheReadTokens: 0, cacheWriteTokens: 1500 },
    },
    {
      name: 'no cache figures',
      wire: { prompt_tokens: 50, completion_tokens: 5 },
      usage: { inputTokens: 50, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0 },
    },
  ]
  for (const { name, wire, usage } of cases) {
    it(`reads ${name}`, async () => {
      const h = await setup((_, res) => sendStream(res, textReply('ok', wire)))
      try {
        const events = await drainStream(h.ctx, sampleRequest())
        expect(events.filter((event) => event.type === 'usage')).toEqual([{ type: 'usage', usage }])
      } finally {
        await h.teardown()
      }
    })
  }

  it('reads usage sent on the finish chunk itself (no separate usage chunk)', async () => {
    const finish = { ...chunk({}, 'stop'), usage: { prompt_tokens: 7, completion_tokens: 1 } }
    const h = await setup((_, res) => sendStream(res, [chunk({ content: 'hi' }), finish]))
    try {
      const events = await drainStream(h.ctx, sampleRequest())
      expect(events.find((event) => event.type === 'usage')).toEqual({
        type: 'usage', usage: { inputTokens: 7, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
      })
    } finally {
      await h.teardown()
    }
  })

  it('reports no usage when the server sends none', async () => {
    const h = await setup((_, res) => sendStream(res, [chunk({ content: 'hi' }), chunk({}, 'stop'), usageChunk(null as never)]))
    try {
      const events = await drainStream(h.ctx, sampleRequest())
      expect(events.filter((event) => event.type === 'usage')).toEqual([])
    } finally {
      await h.teardown()
    }
  })
})

describe('tool declarations', () => {
  const changed = () => sampleRequest({
    tools: [sampleTool('read'), sampleTool('grep')],
    messages: [
      { role: 'user', text: 'hi' },
      { role: 'assistant', text: 'hello', toolCalls: [] },
      { role: 'developer', source: 'tool-registry', added: ['grep'], removed: ['write'], headerSeq: 9 },
      { role: 'user', text: 'search' },
    ],
    toolHistory: {
      sequenceStartSeq: 1,
      declarations: [sampleTool('read'), sampleTool('write')],
      updates: [{ seq: 10, added: ['grep'], removed: ['write'], headerSeq: 9 }],
      resolve: (name) => name === 'grep' ? sampleTool('grep') : undefined,
    },
    deferredTools: ['grep'],
  })

  it('appends a joining tool by default, keeps a removed one declared and says in words that it is gone', async () => {
    const h = await setup((_, res) => sendStream(res, textReply('ok')))
    await drainStream(h.ctx, changed())
    await h.teardown()
    const [body] = h.server.bodies()
    expect(body.tools.map((entry: { function: { name: string } }) => entry.function.name)).toEqual(['read', 'write', 'grep'])
    expect(JSON.stringify(body.tools)).not.toContain('defer')
    expect(body.messages.slice(3)).toEqual([
      { role: 'user', content: '[tool registry] The tool "write" has been removed: it is still declared, but a call to it fails.' },
      { role: 'user', content: 'search' },
    ])
    expect(h.server.requests[0]!.headers['anthropic-beta']).toBeUndefined()
  })

  it('declares the effective tools and drops tool-registry developer messages in mode none', async () => {
    const h = await setup((_, res) => sendStream(res, textReply('ok')), { models: [{ id: 'test-model', toolUpdate: 'none' }] })
    try {
      await drainStream(h.ctx, sampleRequest({
        tools: [sampleTool('read'), sampleTool('grep')],
        messages: [
          { role: 'user', text: 'hi' },
          { role: 'assistant', text: 'hello', toolCalls: [] },
          { role: 'developer', source: 'tool-registry', added: ['grep'], removed: ['write'], headerSeq: 9 },
          { role: 'user', text: 'search' },
        ],
        toolHistory: {
          sequenceStartSeq: 1,
          declarations: [sampleTool('read'), sampleTool('write')],
          updates: [{ seq: 10, added: ['grep'], removed: ['write'], headerSeq: 9 }],
          resolve: (name) => name === 'grep' ? sampleTool('grep') : undefined,
        },
        deferredTools: ['grep'],
      }))
      const [body] = h.server.bodies()
      expect(body.tools.map((entry: { function: { name: string } }) => entry.function.name)).toEqual(['read', 'grep'])
      expect(JSON.stringify(body.tools)).not.toContain('defer')
      expect(body.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'assistant', 'user'])
    } finally {
      await h.teardown()
    }
  })
})
