import { Context } from 'cordis'
import LlmRuntime, { PROFILES, cachePolicy } from 'dsh-llm'
import { drainStream, sampleRequest, startLoopback, toolChanges, toolSnapshot } from 'dsh-llm-testing'
import type { ChatMessage } from 'dsh-core'
import { Messages as BetaMessages } from '@anthropic-ai/sdk/resources/beta/messages'
import { Messages } from '@anthropic-ai/sdk/resources/messages'
import { reply, sendEvents } from './wire-frames.ts'
import { afterEach, describe, expect, it, vi } from 'vitest'
import AnthropicProvider, { messagesWireBody, type AnthropicConfig } from '../src/index.ts'
import { placeBreakpoints } from '../src/cache-markers.ts'
import { fakeKey, setup } from './setup.ts'

type Mode = 'addition-only' | 'in-history'
const config = (mode: Mode): Partial<AnthropicConfig> => ({ baseURL: 'https://api.anthropic.com', models: [{ id: 'claude-opus-5-5', toolUpdate: mode }] })
const wire = (mode: Mode, options = toolChanges.afterAddition('claude-opus-5-5')) => messagesWireBody(config(mode), options)

/** `messages[i][j]` of every block that carries a breakpoint, `tools[i]` of every tool. */
function marked(body: any): string[] {
  const at: string[] = []
  body.tools?.forEach((tool: any, index: number) => tool.cache_control && at.push(`tools[${index}]`))
  body.messages.forEach((message: any, index: number) => Array.isArray(message.content) && message.content.forEach((block: any, offset: number) => {
    if (block.cache_control) at.push(`messages[${index}][${offset}]`)
  }))
  return at
}

describe('Anthropic\'s own tool-change blocks on the anthropic profile', () => {
  it.each(['addition-only', 'in-history'] as Mode[])('%s: never puts a breakpoint on the trailing system message, but on the user message before it', (mode) => {
    for (const options of [toolChanges.afterAddition('claude-opus-5-5'), toolChanges.afterRemoval('claude-opus-5-5')]) {
      const { body } = wire(mode, options)
      const last = body.messages.at(-1)!
      expect(last.role).toBe('system')
      expect(marked(body)).toContain(`messages[${body.messages.length - 2}][0]`)
      expect(marked(body).some((at) => at.startsWith(`messages[${body.messages.length - 1}]`))).toBe(false)
    }
  })

  it('moves a grid breakpoint that would land in a system message to the block before it', () => {
    const text = (value: string) => ({ type: 'text' as const, text: value })
    // 19 user / assistant blocks, then a system message of two blocks at positions 19 and 20, then 3 more
    const history: any[] = []
    for (let index = 0; index < 19; index++) history.push({ role: index % 2 ? 'assistant' : 'user', content: [text(`m${index}`)] })
    history.push({ role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_reference', name: 'a' } }, { type: 'tool_removal', tool: { type: 'tool_reference', name: 'b' } }] })
    history.push({ role: 'assistant', content: [text('x')] }, { role: 'user', content: [text('y')] }, { role: 'assistant', content: [text('z')] }, { role: 'user', content: [text('w')] })
    const model = { profile: PROFILES.anthropic, cache: cachePolicy(PROFILES.anthropic, 'm') } as any
    const body = placeBreakpoints({ model: 'm', max_tokens: 1, messages: history, stream: true }, model) as any
    // the grid point (block 19) falls in the system message: the breakpoint goes to block 18, messages[18][0]
    expect(marked(body)).toEqual(['messages[18][0]', 'messages[23][0]'])
  })

  it('addition-only declares the tool that joins deferred, unmarked, and names it by tool_reference; in-history leaves tools alone and carries it inline', () => {
    const additionOnly = wire('addition-only').body as any
    expect(additionOnly.tools.map((tool: any) => [tool.name, tool.defer_loading ?? false, Boolean(tool.cache_control)]))
      .toEqual([['read', false, false], ['write', false, true], ['grep', true, false]])
    expect(additionOnly.messages.at(-1)).toEqual({ role: 'system', content: [{ type: 'tool_addition', tool: { type: 'tool_reference', name: 'grep' } }] })
    const inHistory = wire('in-history').body as any
    expect(inHistory.tools.map((tool: any) => tool.name)).toEqual(['read', 'write'])
    expect(inHistory.messages.at(-1).content[0].tool).toMatchObject({ type: 'tool_definition', definition: { name: 'grep', description: 'Searches files.' } })
  })

  it('names only the beta its blocks need, and none on a request without blocks', () => {
    expect(wire('addition-only').beta).toBe('mid-conversation-tool-changes-2026-07-01')
    expect(wire('in-history').beta).toBe('inline-tools-2026-09-15')
    expect(wire('in-history', toolChanges.afterRemoval('claude-opus-5-5')).beta).toBe('mid-conversation-tool-changes-2026-07-01')
    expect(wire('addition-only', toolChanges.beforeAddition('claude-opus-5-5'))).toMatchObject({ hasToolUpdates: false })
    expect(wire('addition-only', toolChanges.beforeAddition('claude-opus-5-5')).beta).toBeUndefined()
  })

  it('in-history: one update that removes a start tool and adds a new one names both betas; a start tool that comes back is named by reference', () => {
    const { read, write, grep, user1, assistant1, user2 } = toolChanges
    const swap: ChatMessage = { role: 'developer', source: 'tool-registry', added: ['grep'], removed: ['write'], headerSeq: 5 }
    const back: ChatMessage = { role: 'developer', source: 'tool-registry', added: ['write'], removed: [], headerSeq: 7 }
    const assistant2: ChatMessage = { role: 'assistant', text: 'ok', toolCalls: [] }
    const options = {
      model: 'claude-opus-5-5', system: 'You are a test.', tools: [read, grep, write], messages: [user1, assistant1, user2, swap, assistant2, { role: 'user', text: 'again' } as ChatMessage, back],
      toolHistory: toolSnapshot(1, [read, write], [{ seq: 6, added: ['grep'], removed: ['write'], headerSeq: 5 }, { seq: 9, added: ['write'], removed: [], headerSeq: 7 }], {
        1: [read, write], 5: [read, grep], 7: [read, grep, write],
      }),
    }
    const { body, beta } = wire('in-history', options)
    expect(beta).toBe('mid-conversation-tool-changes-2026-07-01,inline-tools-2026-09-15')
    expect(body.tools!.map((tool) => tool.name)).toEqual(['read', 'write'])
    const updates = body.messages.filter((message) => message.role === 'system').map((message) => message.content)
    expect(updates).toEqual([
      [{ type: 'tool_addition', tool: { type: 'tool_definition', definition: { name: 'grep', description: grep.description, input_schema: grep.parameters } } },
        { type: 'tool_removal', tool: { type: 'tool_reference', name: 'write' } }],
      [{ type: 'tool_addition', tool: { type: 'tool_reference', name: 'write' } }],
    ])
  })

  it('sends a request with the blocks through the SDK\'s beta namespace, with its beta header, and any other through the plain one', async () => {
    // spies that call through: which namespace of the real SDK sent each request
    const plain = vi.spyOn(Messages.prototype, 'create')
    const beta = vi.spyOn(BetaMessages.prototype, 'create')
    const h = await setup((_, res) => sendEvents(res, reply({ text: 'ok' })), { provider: 'anthropic', models: [{ id: 'claude-opus-5-5', toolUpdate: 'addition-only' }] })
    try {
      await drainStream(h.ctx, toolChanges.beforeAddition('claude-opus-5-5'))
      await drainStream(h.ctx, toolChanges.afterAddition('claude-opus-5-5'))
      expect(h.server.requests.map((request) => request.headers['anthropic-beta'])).toEqual([undefined, 'mid-conversation-tool-changes-2026-07-01'])
      expect([plain.mock.calls.length, beta.mock.calls.length]).toEqual([1, 1])
      expect((beta.mock.calls[0]![0] as any).messages.at(-1).role).toBe('system')
    } finally {
      plain.mockRestore()
      beta.mockRestore()
      await h.teardown()
    }
  })

  it('places a tool change that follows an assistant message right after the next user message', () => {
    const { body } = wire('addition-only')
    expect(body.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user', 'system'])
  })
})

describe('the SDK\'s own warnings', () => {
  const warn = vi.spyOn(console, 'warn')
  afterEach(() => warn.mockClear())

  it('reach the adapter\'s logger once per model, not stderr', async () => {
    const server = await startLoopback((_req, res) => sendEvents(res, reply({ text: 'ok' })))
    const key = fakeKey()
    const ctx = new Context()
    const logged: string[] = []
    ctx.logger.exporter({ export: (message) => { if (message.type === 'warn') logged.push(String(message.args[0])) } })
    await ctx.plugin(LlmRuntime)
    const fiber = await ctx.plugin(AnthropicProvider, { baseURL: server.origin, apiKeyEnv: key.name, models: ['claude-opus-4-5', 'claude-mythos-preview', 'claude-opus-5-5'] })
    try {
      for (const model of ['claude-opus-4-5', 'claude-opus-4-5', 'claude-mythos-preview', 'claude-opus-5-5']) await drainStream(ctx, sampleRequest({ model }))
      expect(warn).not.toHaveBeenCalled()
      expect(logged).toHaveLength(2)
      expect(logged[0]).toMatch(/^@anthropic-ai\/sdk: The model 'claude-opus-4-5' is deprecated and will reach end-of-life on /)
      expect(logged[1]).toMatch(/^@anthropic-ai\/sdk: The model 'claude-mythos-preview' is deprecated/)
      expect(logged.every((line) => !line.includes('\n'))).toBe(true)
    } finally {
      await fiber.dispose()
      await server.close()
      key.cleanup()
    }
  })
})
