import type { ChatMessage } from 'dsh-core'
import type { GenerateOptions, LlmAdapter, StreamEvent } from 'dsh-llm'
import { describe, expect, it } from 'vitest'
import { rebuildLastRequest } from '../src/index.ts'
import { setup, toolPlugin, types } from './setup.ts'

const lastText = (options: GenerateOptions) => {
  const last = options.messages.at(-1) as ChatMessage & { text?: string }
  return last.role === 'tool' ? `tool:${(last as { output: string }).output}` : last.text ?? ''
}

/** A model that answers from the last message: `answer(text, options)`; every request is recorded. */
function model(answer: (last: string, options: GenerateOptions) => StreamEvent[] | Promise<StreamEvent[]>, contextWindow?: number) {
  const calls: GenerateOptions[] = []
  const adapter: LlmAdapter = {
    provider: 'forking',
    models: ['forking'],
    ...contextWindow && { contextWindow },
    async* stream(options) {
      calls.push(options)
      yield* await answer(lastText(options), options)
    },
  }
  return { adapter, calls }
}

const text = (delta: string): StreamEvent[] => [{ type: 'text', delta }]
const agentCall = (id: string, args: Record<string, unknown>): StreamEvent => ({ type: 'tool-call', call: { id, name: 'agent', arguments: args } })

/** The request's front as bytes: model, system prompt, tools and the first `count` messages. */
const front = (request: GenerateOptions, count: number) =>
  JSON.stringify({ model: request.model, system: request.system, tools: request.tools, messages: [...request.messages].slice(0, count) })

async function spine(answer: Parameters<typeof model>[0], loop: object = {}, contextWindow?: number) {
  const { adapter, calls } = model(answer, contextWindow)
  const spine = await setup({ adapter, loop: { model: 'forking', ...loop } })
  await spine.ctx.plugin(toolPlugin('tools-a', ['shout']))
  spine.ctx.agentLoop.offerAgentTool()
  return { ...spine, calls }
}

describe('agent.fork()', () => {
  it('side: the child starts from the parent as it stands, linked both ways, and the parent\'s history is untouched', async () => {
    const { ctx, calls } = await spine((last) => text(`answer to ${last}`))
    const parent = await ctx.agentLoop.createAgent({ id: 'p' })
    await parent.prompt('first question')
    const before = parent.session.messages()
    const parentLast = calls.at(-1)!
    const result = await parent.fork({ mode: 'side', instruction: 'what did I ask?', description: 'a side question' })
    expect(result).toEqual({ child: 'p~1', text: 'answer to what did I ask?', reason: 'done' })
    const childFirst = calls.at(-1)!
    // the parent's request up to its history end, byte for byte, then its answer and the question
    expect(front(childFirst, parentLast.messages.length)).toBe(front(parentLast, parentLast.messages.length))
    expect([...childFirst.messages].slice(parentLast.messages.length)).toEqual([
      { role: 'assistant', text: 'answer to first question', toolCalls: [] }, { role: 'user', text: 'what did I ask?' },
    ])
    expect(parent.session.messages()).toBe(before)
    expect(parent.session.events().at(-1)).toMatchObject({ type: 'fork/child', data: { turn: 1, child: 'p~1', mode: 'side', description: 'a side question' } })
    const child = await ctx.sessions.open('p~1')
    const opening = child.events()[0]!
    expect(opening).toMatchObject({ type: 'fork/parent', data: { parent: 'p', mode: 'side', description: 'a side question' } })
    expect(types(child.events().slice(1, 1 + (opening.data as { copied: number }).copied))).toEqual(types(parent.session.events().slice(0, -1)))
    // the child's log alone rebuilds the request it sent
    const { signal: _, ...sent } = childFirst
    expect(JSON.parse(JSON.stringify(rebuildLastRequest(child.events())))).toEqual(JSON.parse(JSON.stringify(sent)))
    expect(child.turns().open).toBeUndefined()
  })

  it('the agent tool: a fork inside a turn continues from the request that called it; its answer is the tool result', async () => {
    const { ctx, calls } = await spine((last) => {
      if (last === 'go') return [agentCall('c1', { instruction: 'count the files', description: 'counter' })]
      if (last === 'count the files') return text('3 files')
      return text(`parent read ${last}`)
    })
    const parent = await ctx.agentLoop.createAgent({ id: 'p' })
    const result = await parent.prompt('go')
    expect(result).toMatchObject({ reason: 'done', text: 'parent read tool:3 files' })
    const [parentFirst, childFirst, parentNext] = calls
    expect(parentFirst.tools.map((tool) => tool.name)).toEqual(['agent', 'shout'])
    expect(front(childFirst!, parentFirst!.messages.length)).toBe(front(parentFirst!, parentFirst!.messages.length))
    expect([...childFirst!.messages].slice(parentFirst!.messages.length)).toEqual([{ role: 'user', text: 'count the files' }])
    // the parent's next request reads what it had: its own first request is its front
    expect(front(parentNext!, parentFirst!.messages.length)).toBe(front(parentFirst!, parentFirst!.messages.length))
    expect(types(parent.session.events())).toEqual([
      'turn/start', 'user/message', 'step/start', 'request/header', 'assistant/message', 'tool/call', 'fork/child', 'tool/result', 'step/end',
      'step/start', 'assistant/message', 'step/end', 'turn/end',
    ])
    expect(parent.session.events()[6]!.data).toEqual({ turn: 1, child: 'p~1', mode: 'fork', description: 'counter', call: 'c1' })
    const child = await ctx.sessions.open('p~1')
    expect(child.events()[0]!.data).toMatchObject({ parent: 'p', mode: 'fork', call: 'c1' })
    // the copy ends where the parent's request did: its turn closed there, then the child's own turn
    expect(types(child.events())).toEqual([
      'fork/parent', 'turn/start', 'user/message', 'step/start', 'request/header', 'step/end', 'turn/end',
      'turn/start', 'user/message', 'step/start', 'assistant/message', 'step/end', 'turn/end',
    ])
    const { signal: _, ...sent } = childFirst!
    expect(JSON.parse(JSON.stringify(rebuildLastRequest(child.events())))).toEqual(JSON.parse(JSON.stringify(sent)))
  })
})
