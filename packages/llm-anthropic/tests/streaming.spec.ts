import { drainStream, joinText, sampleRequest, sampleTool } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import { messageEnd, messageStart, reply, sendEvents } from './wire-frames.ts'
import { setup } from './setup.ts'

describe('text streaming', () => {
  it('streams the deltas and sends system, tools and history in the Messages shape', async () => {
    const h = await setup((_, res) => sendEvents(res, reply({ text: 'Hello there, world' })))
    try {
      const events = await drainStream(h.ctx, sampleRequest({
        messages: [
          { role: 'user', text: 'read a.txt and b.txt' },
          {
            role: 'assistant',
            text: 'reading',
            toolCalls: [
              { id: 'toolu_1', name: 'read', arguments: { input: 'a.txt' } },
              { id: 'toolu_2', name: 'read', arguments: { input: 'b.txt' } },
            ],
          },
          { role: 'tool', id: 'toolu_1', name: 'read', output: 'contents of a', isError: false },
          { role: 'tool', id: 'toolu_2', name: 'read', output: 'no such file', isError: true },
          { role: 'assistant', text: '', toolCalls: [] },
          { role: 'assistant', text: 'done', toolCalls: [] },
          { role: 'user', text: 'thanks' },
        ],
      }))
      expect(joinText(events)).toBe('Hello there, world')
      expect(events.filter((event) => event.type === 'text').length).toBeGreaterThan(1)
      expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' })

      const [recorded] = h.server.requests
      expect(recorded.url).toBe('/v1/messages')
      expect(recorded.headers.authorization).toBe(`Bearer ${h.key.value}`)
      expect(recorded.headers['anthropic-beta']).toBeUndefined()
      expect(Object.keys(JSON.parse(recorded.body))).toEqual(['model', 'max_tokens', 'system', 'tools', 'messages', 'stream'])
      expect(JSON.parse(recorded.body)).toEqual({
        model: 'test-model',
        max_tokens: 4096,
        system: 'You are a test.',
        tools: [
          { name: 'read', description: 'the read tool', input_schema: sampleTool('read').parameters },
          { name: 'write', description: 'the write tool', input_schema: sampleTool('write').parameters },
        ],
        messages: [
          { role: 'user', content: 'read a.txt and b.txt' },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: 'reading' },
              { type: 'tool_use', id: 'toolu_1', name: 'read', input: { input: 'a.txt' } },
              { type: 'tool_use', id: 'toolu_2', name: 'read', input: { input: 'b.txt' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: 'contents of a' },
              { type: 'tool_result', tool_use_id: 'toolu_2', content: 'no such file', is_error: true },
            ],
          },
          { role: 'assistant', content: [{ type: 'text', text: 'done' }] },
          { role: 'user', content: 'thanks' },
        ],
        stream: true,
      })
    } finally {
      await h.teardown()
    }
  })

  it('uses the request maxTokens over the configured one, and the configured one over the default', async () => {
    const h = await setup((_, res) => sendEvents(res, reply({ text: 'ok' })), { maxTokens: 1000 })
    try {
      await drainStream(h.ctx, sampleRequest())
      await drainStream(h.ctx, sampleRequest({ maxTokens: 77 }))
      expect(h.server.bodies().map((body) => body.max_tokens)).toEqual([1000, 77])
    } finally {
      await h.teardown()
    }
  })

  it('omits an empty system prompt and an empty tool list', async () => {
    const h = await setup((_, res) => sendEvents(res, reply({ text: 'ok' })))
    try {
      await drainStream(h.ctx, sampleRequest({ system: '', tools: [] }))
      expect(Object.keys(h.server.bodies()[0])).toEqual(['model', 'max_tokens', 'messages', 'stream'])
    } finally {
      await h.teardown()
    }
  })

  it('maps stop_reason max_tokens to max_tokens', async () => {
    const h = await setup((_, res) => sendEvents(res, [
      messageStart(),
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'cut' } },
      { type: 'content_block_stop', index: 0 },
      ...messageEnd('max_tokens'),
    ]))
    try {
      expect((await drainStream(h.ctx, sampleRequest())).at(-1)).toEqual({ type: 'done', stopReason: 'max_tokens' })
    } finally {
      await h.teardown()
    }
  })

  it('skips thinking blocks', async () => {
    const h = await setup((_, res) => sendEvents(res, [
      messageStart(),
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'answer' } },
      { type: 'content_block_stop', index: 1 },
      ...messageEnd('end_turn'),
    ]))
    try {
      expect(joinText(await drainStream(h.ctx, sampleRequest()))).toBe('answer')
    } finally {
      await h.teardown()
    }
  })
})

describe('usage normalization', () => {
  it('adds cache reads and writes to the input tokens', async () => {
    const h = await setup((_, res) => sendEvents(res, reply({
      text: 'ok',
      start: { input_tokens: 25, output_tokens: 1, cache_read_input_tokens: 2048, cache_creation_input_tokens: 300 },
      end: { output_tokens: 40 },
    })))
    try {
      const events = await drainStream(h.ctx, sampleRequest())
      expect(events.filter((event) => event.type === 'usage')).toEqual([{
        type: 'usage', usage: { inputTokens: 2373, outputTokens: 40, cacheReadTokens: 2048, cacheWriteTokens: 300 },
      }])
    } finally {
      await h.teardown()
    }
  })

  it('lets the cumulative message_delta usage override message_start', async () => {
    const h = await setup((_, res) => sendEvents(res, reply({
      text: 'ok',
      start: { input_tokens: 0, output_tokens: 0 },
      end: { input_tokens: 12, output_tokens: 9, cache_read_input_tokens: 100, cache_creation_input_tokens: null },
    })))
    try {
      const usage = (await drainStream(h.ctx, sampleRequest())).find((event) => event.type === 'usage')
      expect(usage).toEqual({ type: 'usage', usage: { inputTokens: 112, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 0 } })
    } finally {
      await h.teardown()
    }
  })
})
