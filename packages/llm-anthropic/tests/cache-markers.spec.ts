import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import { rebuildLastRequest } from 'dsh-agent-loop'
import { COMPACTION_INSTRUCTION, type ChatMessage } from 'dsh-core'
import { LOOKBACK_BLOCKS, type GenerateOptions } from 'dsh-llm'
import { sampleRequest, startLoopback, toolChanges, toolsPlugin } from 'dsh-llm-testing'
import { reply, sendEvents } from './wire-frames.ts'
import { describe, expect, it } from 'vitest'
import AnthropicProvider, { messagesWireBody, type AnthropicConfig } from '../src/index.ts'
import { fakeKey } from './setup.ts'

const ANTHROPIC: Partial<AnthropicConfig> = { baseURL: 'https://api.anthropic.com', models: ['test-model'] }
const body = (options: GenerateOptions, config: Partial<AnthropicConfig> = ANTHROPIC): any => messagesWireBody(config, options).body

/** Where the breakpoints are: `tools[i]`, `system`, `messages[i][j]` (j a content block), with each marker. */
function breakpoints(wire: any): { at: string; marker: unknown }[] {
  const found: { at: string; marker: unknown }[] = []
  wire.tools?.forEach((tool: any, index: number) => tool.cache_control && found.push({ at: `tools[${index}]`, marker: tool.cache_control }))
  if (Array.isArray(wire.system)) wire.system.forEach((block: any) => block.cache_control && found.push({ at: 'system', marker: block.cache_control }))
  wire.messages.forEach((message: any, index: number) => Array.isArray(message.content) && message.content.forEach((block: any, offset: number) =>
    block.cache_control && found.push({ at: `messages[${index}][${offset}]`, marker: block.cache_control })))
  return found
}
const places = (wire: any) => breakpoints(wire).map((point) => point.at)

function conversation(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = []
  for (let turn = 0; turn < turns; turn++) messages.push({ role: 'user', text: `q${turn}` }, { role: 'assistant', text: `a${turn}`, toolCalls: [] })
  return [...messages, { role: 'user', text: 'last' }]
}

describe('cache breakpoints on the anthropic profile', () => {
  it('marks the last tool, the end of the system prompt and the newest message', () => {
    const wire = body(sampleRequest())
    expect(places(wire)).toEqual(['tools[1]', 'system', 'messages[0][0]'])
    expect(wire.system).toEqual([{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }])
    expect(wire.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'hello', cache_control: { type: 'ephemeral' } }] })
  })

  it('marks the newest block of a message of several blocks: the last tool result', () => {
    const options = sampleRequest({ messages: [
      { role: 'user', text: 'both' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'a', name: 'read', arguments: {} }, { id: 'b', name: 'read', arguments: {} }] },
      { role: 'tool', id: 'a', name: 'read', output: '1', isError: false },
      { role: 'tool', id: 'b', name: 'read', output: '2', isError: false },
    ] })
    expect(places(body(options))).toEqual(['tools[1]', 'system', 'messages[2][1]'])
  })

  it('adds a breakpoint on the 20-block grid once the newest block is more than 20 blocks past the system prompt', () => {
    // 10 exchanges + 1 = 21 blocks: the newest is block 20, the grid point block 19
    expect(places(body(sampleRequest({ messages: conversation(9) })))).toEqual(['tools[1]', 'system', 'messages[18][0]'])
    expect(places(body(sampleRequest({ messages: conversation(10) })))).toEqual(['tools[1]', 'system', 'messages[19][0]', 'messages[20][0]'])
    // without tools the budget leaves two grid points
    expect(places(body(sampleRequest({ tools: [], messages: conversation(25) })))).toEqual(['system', 'messages[19][0]', 'messages[39][0]', 'messages[50][0]'])
  })

  it('never places more than four, and keeps a grid point for the next request to find the previous one', () => {
    for (let turns = 0; turns < 60; turns++) {
      const wire = body(sampleRequest({ messages: conversation(turns) }))
      expect(breakpoints(wire).length).toBeLessThanOrEqual(4)
      // the previous request (one exchange shorter) wrote its entry at its newest block; from some breakpoint
      // of this request it is at most LOOKBACK_BLOCKS - 1 blocks back
      if (turns === 0) continue
      const previousNewest = 2 * (turns - 1)
      const marks = breakpoints(wire).filter((point) => point.at.startsWith('messages')).map((point) => Number(/messages\[(\d+)\]/.exec(point.at)![1]))
      expect(marks.some((mark) => mark >= previousNewest && mark - previousNewest < LOOKBACK_BLOCKS)).toBe(true)
    }
  })

  it('asks every breakpoint for the entry\'s cacheTtl, so no 5-minute entry precedes a 1-hour one', () => {
    const wire = body(sampleRequest({ messages: conversation(12) }), { ...ANTHROPIC, models: [{ id: 'test-model', cacheTtl: '1h' }] })
    expect(breakpoints(wire).map((point) => point.marker)).toEqual(Array(4).fill({ type: 'ephemeral', ttl: '1h' }))
  })

  it('gives a compaction request the same tool and system breakpoints and one within the lookback of the main request\'s', () => {
    const main = sampleRequest({ messages: conversation(3) })
    const compaction = { ...main, messages: [...main.messages, { role: 'user' as const, text: COMPACTION_INSTRUCTION }] }
    const [mainWire, compactionWire] = [body(main), body(compaction)]
    expect(places(compactionWire).slice(0, 2)).toEqual(places(mainWire).slice(0, 2))
    expect(compactionWire.tools).toEqual(mainWire.tools)
    expect(compactionWire.system).toEqual(mainWire.system)
    expect(places(compactionWire).at(-1)).toBe(`messages[${main.messages.length}][0]`)
  })

  it('is a pure function of the request: the same request gives the same bytes', () => {
    // two requests built apart from each other, equal in value
    const [first, second] = [toolChanges.afterAddition('test-model'), toolChanges.afterAddition('test-model')]
    expect(first).not.toBe(second)
    expect(JSON.stringify(body(first))).toBe(JSON.stringify(body(second)))
  })

  it('sends no marker on other profiles', () => {
    for (const baseURL of ['https://api.deepseek.com/anthropic', 'http://127.0.0.1:1']) {
      const wire = body(sampleRequest({ messages: conversation(12) }), { baseURL, models: ['test-model'] })
      expect(breakpoints(wire)).toEqual([])
      expect(typeof wire.system).toBe('string')
    }
  })
})

describe('cache breakpoints through the loop', () => {
  it('are rebuilt from the session log byte for byte, markers included, across a tool addition', async () => {
    const server = await startLoopback((_req, res) => sendEvents(res, reply({ text: 'ok' })))
    const key = fakeKey()
    const config: Partial<AnthropicConfig> = { baseURL: server.origin, provider: 'anthropic', apiKeyEnv: key.name, models: ['test-model'] }
    const ctx = new Context()
    await ctx.plugin(AgentSpine, { scripted: false, model: 'test-model', persistenceRoot: await mkdtemp(join(tmpdir(), 'dsh-marks-')), agentTool: false } as any)
    await ctx.plugin(AnthropicProvider, config as any)
    await ctx.plugin(toolsPlugin('base', ['read', 'write']))
    const agent = await ctx.agentLoop.createAgent({ id: 'marks' })
    const rebuilt: string[] = []
    for (const [index, text] of ['one', 'two', 'three'].entries()) {
      if (index === 1) await ctx.plugin(toolsPlugin('search', ['grep']))
      await agent.prompt(text)
      const shape = rebuildLastRequest(agent.session.events())!
      rebuilt.push(JSON.stringify(messagesWireBody(config, { ...shape, model: 'test-model' }).body))
    }
    const sent = server.requests.map((request) => request.body)
    await server.close()
    key.cleanup()
    expect(sent).toHaveLength(3)
    expect(rebuilt).toEqual(sent)
    expect(places(JSON.parse(sent[2]!))).toEqual(['tools[2]', 'system', 'messages[4][0]'])
  })
})
