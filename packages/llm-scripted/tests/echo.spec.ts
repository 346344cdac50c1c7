import type { ChatMessage } from 'dsh-core'
import type { StreamEvent } from 'dsh-llm'
import { collect } from 'dsh-llm'
import { describe, expect, it } from 'vitest'
import { ask, setup } from './setup.ts'

async function events(ctx: Awaited<ReturnType<typeof setup>>['ctx'], messages: ChatMessage[]) {
  const seen: StreamEvent[] = []
  for await (const event of ctx.llm.stream(ask(messages))) seen.push(event)
  return seen
}

describe('scripted-echo', () => {
  it('echoes the last user text in a few deltas', async () => {
    const { ctx } = await setup()
    const seen = await events(ctx, [
      { role: 'user', text: 'first' },
      { role: 'assistant', text: 'echo: first', toolCalls: [] },
      { role: 'user', text: 'hello there' },
    ])
    const deltas = seen.flatMap((event) => event.type === 'text' ? [event.delta] : [])
    expect(deltas.join('')).toBe('echo: hello there')
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.length).toBeLessThanOrEqual(3)
    expect(seen.at(-1)).toEqual({ type: 'done', stopReason: 'end_turn' })
  })

  it('splits deltas on code points', async () => {
    const { ctx } = await setup()
    const text = (await events(ctx, [{ role: 'user', text: '😀😀😀😀' }])).flatMap((e) => e.type === 'text' ? [e.delta] : [])
    expect(text.join('')).toBe('echo: 😀😀😀😀')
    // a lone surrogate would make encodeURIComponent throw
    for (const delta of text) expect(() => encodeURIComponent(delta)).not.toThrow()
  })

  it('round-trips /call: a tool call first, the tool output after the result', async () => {
    const { ctx } = await setup()
    const user: ChatMessage = { role: 'user', text: '/call read_file {"path": "README.md"}' }
    const history: ChatMessage[] = [{ role: 'user', text: 'hi' }, { role: 'assistant', text: 'echo: hi', toolCalls: [] }, user]
    const first = await collect(ctx.llm.stream(ask(history)))
    expect(first.toolCalls).toEqual([{ id: 'call_2_1', name: 'read_file', arguments: { path: 'README.md' } }])
    expect(first.stopReason).toBe('tool_use')
    expect(first.text).toBe('')

    const second = await collect(ctx.llm.stream(ask([
      ...history,
      { role: 'assistant', text: '', toolCalls: first.toolCalls },
      { role: 'tool', id: 'call_2_1', name: 'read_file', output: '# DSH', isError: false },
    ])))
    expect(second).toMatchObject({ text: 'tool read_file returned: # DSH', toolCalls: [], stopReason: 'end_turn' })
  })

  it('calls with {} when /call has no JSON', async () => {
    const { ctx } = await setup()
    const result = await collect(ctx.llm.stream(ask([{ role: 'user', text: '/call list_tools' }])))
    expect(result.toolCalls).toEqual([{ id: 'call_1_1', name: 'list_tools', arguments: {} }])
  })

  it('explains invalid JSON in /call instead of calling', async () => {
    const { ctx } = await setup()
    const result = await collect(ctx.llm.stream(ask([{ role: 'user', text: '/call read_file {path: README}' }])))
    expect(result.toolCalls).toEqual([])
    expect(result.stopReason).toBe('end_turn')
    expect(result.text).toMatch(/^cannot call read_file: the arguments are not valid JSON \(.+\): \{path: README\}$/)
  })

  it('refuses /call arguments that are not a JSON object', async () => {
    const { ctx } = await setup()
    const result = await collect(ctx.llm.stream(ask([{ role: 'user', text: '/call read_file ["a"]' }])))
    expect(result.toolCalls).toEqual([])
    expect(result.text).toBe('cannot call read_file: the arguments must be a JSON object, got ["a"]')
  })

  it('counts usage deterministically from the request (about four characters a token), marked emulated', async () => {
    const { ctx } = await setup()
    const short = await collect(ctx.llm.stream(ask([{ role: 'user', text: 'x' }])))
    const again = await collect(ctx.llm.stream(ask([{ role: 'user', text: 'x' }])))
    const long = await collect(ctx.llm.stream(ask([{ role: 'user', text: 'x'.repeat(400) }])))
    expect({ ...short.usage, cacheReadTokens: 0 }).toEqual({ ...again.usage, cacheReadTokens: 0 })
    expect(short.usage!.emulated).toBe(true)
    // the same request again: its whole 16-token blocks come from the emulated cache
    expect(again.usage!.cacheReadTokens).toBe(Math.floor(again.usage!.inputTokens / 16) * 16)
    expect(Math.abs(long.usage!.inputTokens - short.usage!.inputTokens - 100)).toBeLessThanOrEqual(1)
    expect(long.usage!.outputTokens - short.usage!.outputTokens).toBe(100)
    expect(short.usage!.cacheReadTokens).toBe(0)
    const withTools = await collect(ctx.llm.stream(ask([{ role: 'user', text: 'x' }], {
      tools: [{ name: 'read', description: 'r'.repeat(80), parameters: { type: 'object' } }],
    })))
    expect(withTools.usage!.inputTokens).toBeGreaterThan(short.usage!.inputTokens + 20)
  })

  it('counts the projected request: in-history keeps a removed tool in the estimate', async () => {
    const read = { name: 'read', description: 'r'.repeat(200), parameters: { type: 'object' } }
    const messages: ChatMessage[] = [
      { role: 'user', text: 'a' },
      { role: 'developer', source: 'tool-registry', added: [], removed: ['read'], headerSeq: 3 },
      { role: 'user', text: 'b' },
    ]
    const options = ask(messages, {
      toolHistory: { sequenceStartSeq: 1, declarations: [read], updates: [{ seq: 4, added: [], removed: ['read'], headerSeq: 3 }], resolve: () => undefined },
    })
    const none = await setup({ toolUpdate: 'none' })
    const inHistory = await setup({ toolUpdate: 'in-history' })
    const plain = (await collect(none.ctx.llm.stream({ ...options }))).usage!.inputTokens
    const projected = (await collect(inHistory.ctx.llm.stream({ ...options }))).usage!.inputTokens
    expect(projected - plain).toBeGreaterThan(50)
    expect(inHistory.ctx.llm.toolUpdateMode('scripted-echo')).toBe('in-history')
  })

  it('answers every configured model id as echo', async () => {
    const { ctx } = await setup({ models: ['echo-b', 'echo-a'] })
    expect(ctx.llm.models()).toEqual(['echo-a', 'echo-b'])
    expect((await ctx.llm.generate(ask([{ role: 'user', text: 'yo' }], { model: 'echo-b' }))).text).toBe('echo: yo')
  })

  it('unregisters its models when the plugin is disposed', async () => {
    const { ctx, fiber } = await setup()
    expect(ctx.llm.models()).toEqual(['scripted-echo'])
    await fiber.dispose()
    expect(ctx.llm.models()).toEqual([])
  })
})

describe('the token estimate', () => {
  it('measures exactly what JSON.stringify would, frozen or not', async () => {
    const { jsonLength } = await import('../src/estimate.ts')
    const samples: unknown[] = [
      { a: 1, b: 'x"y', c: [1, null, undefined, () => 1], d: undefined, e: { f: true, g: 'ünï' } },
      Object.freeze({ nested: Object.freeze([Object.freeze({ k: 'v' }), 2.5, -0, '\n']) }),
      [], {}, 'text', 12, null, [{ toJSON: () => 'custom' }],
    ]
    for (const sample of samples) expect(jsonLength(sample)).toBe(JSON.stringify(sample).length)
  })
})
