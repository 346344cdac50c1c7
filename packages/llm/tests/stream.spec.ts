import type { StreamEvent } from 'dsh-llm'
import { LlmError, collect } from 'dsh-llm'
import { describe, expect, it } from 'vitest'
import { drain, failure, fakeAdapter, options, setup } from './setup.ts'

const usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 4, cacheWriteTokens: 0 }

describe('llm.stream contract', () => {
  it('passes text, tool calls, usage and one done through', async () => {
    const ctx = await setup()
    const events: StreamEvent[] = [
      { type: 'text', delta: 'a' },
      { type: 'text', delta: '' },
      { type: 'tool-call', call: { id: 'c1', name: 'read', arguments: { path: 'x' } } },
      { type: 'usage', usage },
      { type: 'done', stopReason: 'tool_use' },
    ]
    ctx.llm.register(fakeAdapter('p', ['m'], events).adapter)
    expect(await drain(ctx.llm.stream(options('m')))).toEqual([events[0], events[2], events[3], events[4]])
  })

  it('synthesizes end_turn when the adapter ends without done', async () => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('p', ['m'], [{ type: 'text', delta: 'hi' }]).adapter)
    const events = await drain(ctx.llm.stream(options('m')))
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' })
    expect(events.filter((event) => event.type === 'done')).toHaveLength(1)
  })

  it('synthesizes tool_use when tool calls were seen and no done came', async () => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('p', ['m'], [{ type: 'tool-call', call: { id: 'c', name: 't', arguments: {} } }]).adapter)
    const events = await drain(ctx.llm.stream(options('m')))
    expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' })
  })

  it('stops reading the adapter after done and closes it', async () => {
    const ctx = await setup()
    let closed = false
    let readPastDone = false
    ctx.llm.register(fakeAdapter('p', ['m'], async function* () {
      try {
        yield { type: 'done', stopReason: 'end_turn' } as StreamEvent
        readPastDone = true
        yield { type: 'text', delta: 'late' } as StreamEvent
        yield { type: 'done', stopReason: 'end_turn' } as StreamEvent
      } finally {
        closed = true
      }
    }).adapter)
    expect(await drain(ctx.llm.stream(options('m')))).toEqual([{ type: 'done', stopReason: 'end_turn' }])
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(readPastDone).toBe(false)
    expect(closed).toBe(true)
  })

  it('normalizes usage', async () => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('p', ['m'], [
      { type: 'usage', usage: { inputTokens: 3.7, outputTokens: -1, cacheReadTokens: 8 } as any },
    ]).adapter)
    const result = await collect(ctx.llm.stream(options('m')))
    expect(result.usage).toEqual({ inputTokens: 8, outputTokens: 0, cacheReadTokens: 8, cacheWriteTokens: 0 })
  })

  it('passes a provider verdict through to collect(), an unknown reason as it came', async () => {
    const ctx = await setup()
    const verdict = { responseId: 'msg_1', reason: 'speed_changed', missedTokens: 900 }
    ctx.llm.register(fakeAdapter('p', ['m'], [{ type: 'verdict', verdict }, { type: 'text', delta: 'hi' }]).adapter)
    const result = await collect(ctx.llm.stream(options('m')))
    expect(result.verdict).toEqual(verdict)
    expect(result.text).toBe('hi')
  })

  it.each([
    [[{ type: 'usage', usage }, { type: 'usage', usage }], 'usage was reported twice'],
    [[{ type: 'reasoning', delta: 'x' }], 'unknown event type "reasoning"; valid: text, tool-call, usage, verdict, done'],
    [[{ type: 'text', delta: 3 }], 'text delta must be a string, got number'],
    [[{ type: 'tool-call', call: { id: '', name: 't', arguments: {} } }], 'tool call id must be a non-empty string'],
    [[{ type: 'tool-call', call: { id: 'c', name: 't', arguments: '{}' } }], 'arguments of tool call "t" must be a JSON object'],
    [[{ type: 'verdict', verdict: { responseId: 'r' } }, { type: 'verdict', verdict: { responseId: 'r' } }], 'a verdict was reported twice'],
    [[{ type: 'verdict', verdict: { responseId: '' } }], "a verdict's responseId must be a non-empty string"],
    [[{ type: 'verdict', verdict: { responseId: 'r', reason: 7 } }], "a verdict's reason must be a non-empty string or absent, got 7"],
    [[{ type: 'verdict', verdict: { responseId: 'r', reason: 'tools_changed', missedTokens: -2 } }], "a verdict's missedTokens must be a whole number >= 0, got -2"],
    [[{ type: 'done', stopReason: 'stop' }], 'unknown stop reason "stop"; valid: end_turn, tool_use, max_tokens, cancelled'],
  ])('rejects a contract breach %#', async (events, message) => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('breaker', ['m'], events as StreamEvent[]).adapter)
    const error = await failure(drain(ctx.llm.stream(options('m'))))
    expect(error).toBeInstanceOf(LlmError)
    expect(error.code).toBe('PROTOCOL_ERROR')
    expect(error.message).toContain('provider "breaker"')
    expect(error.message).toContain(message)
  })
})

describe('llm.stream errors', () => {
  it('throws UNKNOWN_MODEL when iterated for an unserved model', async () => {
    const ctx = await setup()
    const error = await failure(drain(ctx.llm.stream(options('nope'))))
    expect(error.code).toBe('UNKNOWN_MODEL')
  })

  it('wraps an error thrown mid-stream, keeping the message and naming the provider', async () => {
    const ctx = await setup()
    const original = new Error('HTTP 500: upstream exploded')
    ctx.llm.register(fakeAdapter('flaky', ['m'], async function* () {
      yield { type: 'text', delta: 'partial' } as StreamEvent
      throw original
    }).adapter)
    const error = await failure(drain(ctx.llm.stream(options('m'))))
    expect(error).toBeInstanceOf(LlmError)
    expect(error.code).toBe('ADAPTER_ERROR')
    expect(error.message).toBe('provider "flaky" failed for model "m": HTTP 500: upstream exploded')
    expect(error.provider).toBe('flaky')
    expect(error.cause).toBe(original)
  })

  it('wraps an error thrown synchronously by adapter.stream()', async () => {
    const ctx = await setup()
    ctx.llm.register({ provider: 'eager', models: ['m'], stream() { throw new TypeError('no key configured') } })
    const error = await failure(drain(ctx.llm.stream(options('m'))))
    expect(error.code).toBe('ADAPTER_ERROR')
    expect(error.message).toContain('"eager"')
    expect(error.message).toContain('no key configured')
  })
})

describe('llm.stream cancellation', () => {
  it('throws CANCELLED without calling the adapter when the signal is already aborted', async () => {
    const ctx = await setup()
    const { adapter, seen } = fakeAdapter('p', ['m'], [{ type: 'done', stopReason: 'end_turn' }])
    ctx.llm.register(adapter)
    const controller = new AbortController()
    controller.abort()
    const error = await failure(drain(ctx.llm.stream(options('m', { signal: controller.signal }))))
    expect(error.code).toBe('CANCELLED')
    expect(seen).toHaveLength(0)
  })

  it('ends promptly with CANCELLED even when the adapter ignores the signal', async () => {
    const ctx = await setup()
    let closed = false
    ctx.llm.register(fakeAdapter('stuck', ['m'], async function* () {
      try {
        yield { type: 'text', delta: 'first' } as StreamEvent
        await new Promise((resolve) => setTimeout(resolve, 300))
        yield { type: 'text', delta: 'never seen' } as StreamEvent
      } finally {
        closed = true
      }
    }).adapter)
    const controller = new AbortController()
    const seen: StreamEvent[] = []
    const started = Date.now()
    const error = await failure((async () => {
      for await (const event of ctx.llm.stream(options('m', { signal: controller.signal }))) {
        seen.push(event)
        setTimeout(() => controller.abort(), 20)
      }
    })())
    expect(Date.now() - started).toBeLessThan(250)
    expect(error).toBeInstanceOf(LlmError)
    expect(error.code).toBe('CANCELLED')
    expect(seen).toEqual([{ type: 'text', delta: 'first' }])
    // the adapter is closed once its pending step settles
    await new Promise((resolve) => setTimeout(resolve, 400))
    expect(closed).toBe(true)
  })

  it('maps an adapter error raised by the abort to CANCELLED', async () => {
    const ctx = await setup()
    const controller = new AbortController()
    ctx.llm.register(fakeAdapter('p', ['m'], async function* (opts) {
      controller.abort()
      throw new Error(`aborted: ${opts.signal?.aborted}`)
    }).adapter)
    const error = await failure(drain(ctx.llm.stream(options('m', { signal: controller.signal }))))
    expect(error.code).toBe('CANCELLED')
  })
})

describe('llm events', () => {
  it('emits llm/request before dispatch and llm/response before done', async () => {
    const ctx = await setup()
    const log: string[] = []
    const request = options('m')
    ctx.on('llm/request', (opts, provider) => {
      expect(opts).toBe(request)
      log.push(`request ${provider}`)
    })
    ctx.on('llm/response', (opts, reported, info) => {
      expect(opts).toBe(request)
      log.push(`response ${reported.cacheReadTokens} ${info.provider} ${info.stopReason} ${info.usageReported}`)
    })
    ctx.llm.register(fakeAdapter('p', ['m'], async function* () {
      log.push('adapter')
      yield { type: 'usage', usage } as StreamEvent
      yield { type: 'done', stopReason: 'end_turn' } as StreamEvent
    }).adapter)
    for await (const event of ctx.llm.stream(request)) {
      log.push(event.type)
      if (event.type === 'done') break
    }
    expect(log).toEqual(['request p', 'adapter', 'usage', 'response 4 p end_turn true', 'done'])
  })

  it('reports zero usage when the adapter sent none, and nothing on failure', async () => {
    const ctx = await setup()
    const responses: unknown[] = []
    ctx.on('llm/response', (_, reported, info) => { responses.push([reported, info.usageReported]) })
    ctx.llm.register(fakeAdapter('p', ['ok'], [{ type: 'done', stopReason: 'end_turn' }]).adapter)
    ctx.llm.register(fakeAdapter('q', ['bad'], async function* () { throw new Error('x') }).adapter)
    await drain(ctx.llm.stream(options('ok')))
    await failure(drain(ctx.llm.stream(options('bad'))))
    expect(responses).toEqual([[{ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, false]])
  })

  it('keeps streaming when an observer throws', async () => {
    const ctx = await setup()
    ctx.on('llm/request', () => { throw new Error('observer bug') })
    ctx.llm.register(fakeAdapter('p', ['m'], [{ type: 'text', delta: 'fine' }]).adapter)
    expect((await ctx.llm.generate(options('m'))).text).toBe('fine')
  })
})

describe('collect', () => {
  it('gathers text, tool calls, usage and the stop reason', async () => {
    const ctx = await setup()
    ctx.llm.register(fakeAdapter('p', ['m'], [
      { type: 'text', delta: 'let me ' },
      { type: 'text', delta: 'look' },
      { type: 'tool-call', call: { id: 'a', name: 'read', arguments: {} } },
      { type: 'tool-call', call: { id: 'b', name: 'grep', arguments: { q: 1 } } },
      { type: 'usage', usage },
      { type: 'done', stopReason: 'tool_use' },
    ]).adapter)
    expect(await collect(ctx.llm.stream(options('m')))).toEqual({
      text: 'let me look',
      toolCalls: [{ id: 'a', name: 'read', arguments: {} }, { id: 'b', name: 'grep', arguments: { q: 1 } }],
      usage,
      stopReason: 'tool_use',
    })
  })

  it('hands each text delta to onText as it arrives, before the next event is read', async () => {
    const seen: string[] = []
    const raw = (async function* () {
      yield { type: 'text', delta: 'a' } as StreamEvent
      seen.push('read on')
      yield { type: 'text', delta: 'b' } as StreamEvent
    })()
    expect((await collect(raw, { onText: (delta) => seen.push(delta) })).text).toBe('ab')
    expect(seen).toEqual(['a', 'read on', 'b'])
  })

  it('leaves usage undefined when none was reported and infers the stop reason of a raw stream', async () => {
    const raw = (async function* () { yield { type: 'tool-call', call: { id: 'a', name: 't', arguments: {} } } as StreamEvent })()
    expect(await collect(raw)).toEqual({ text: '', toolCalls: [{ id: 'a', name: 't', arguments: {} }], usage: undefined, stopReason: 'tool_use' })
  })
})
