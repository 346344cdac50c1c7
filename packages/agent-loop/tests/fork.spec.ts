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

  it('a child\'s permission question carries its description, through the parent\'s asker', async () => {
    const { ctx } = await spine((last) => {
      if (last === 'go') return [agentCall('c1', { instruction: 'shout it', description: 'a shouter' })]
      if (last === 'shout it') return [{ type: 'tool-call', call: { id: 's1', name: 'shout', arguments: { text: 'hey' } } }]
      return text(`read ${last}`)
    }, { permissions: { default: 'ask', allow: ['agent'] } })
    const parent = await ctx.agentLoop.createAgent({ id: 'p' })
    const asked: unknown[] = []
    const result = await parent.prompt('go', { askPermission: async (request) => { asked.push({ name: request.name, fork: request.fork }); return 'allow-once' } })
    expect(asked).toEqual([{ name: 'shout', fork: { child: 'p~1', description: 'a shouter' } }])
    expect(result.text).toBe('read tool:read tool:shout(hey)')
    const child = await ctx.sessions.open('p~1')
    expect(child.events().find((event) => event.type === 'permission/decision')!.data).toMatchObject({ name: 'shout', by: 'user', answer: 'allow-once' })
  })
})

describe('agent.fork() refuses bad input with one line, both logs balanced', () => {
  const balanced = (events: readonly { type: string }[]) =>
    types(events).filter((type) => type === 'turn/start').length === types(events).filter((type) => type === 'turn/end').length

  it('an unknown mode: the primitive rejects before logging anything; the tool answers an error result', async () => {
    const { ctx } = await spine((last) => last === 'go' ? [agentCall('c1', { instruction: 'x', description: 'y', mode: 'side' })] : text(`read ${last}`))
    const parent = await ctx.agentLoop.createAgent({ id: 'p' })
    await parent.prompt('hi')
    const logged = parent.session.lastSeq
    await expect(parent.fork({ mode: 'sideways' as never, instruction: 'x', description: 'y' })).rejects.toThrow(
      'unknown fork mode "sideways"; modes: "fork" (the parent\'s prefix, the default of the agent tool), "fresh" (its own persona and tools: a cold prefix), "side" (an answer kept out of the parent\'s history)')
    expect(parent.session.lastSeq).toBe(logged)
    expect(await ctx.sessions.list()).toEqual(['p'])
    const result = await parent.prompt('go')
    expect(result.text).toBe('read tool:unknown mode "side" of tool "agent"; modes: "fork" (the default: continue from this conversation), "fresh" (a new one)')
    expect(balanced(parent.session.events())).toBe(true)
  })

  it('a fork past maxChildren: the call over the bound is an error result, the others run', async () => {
    const { ctx } = await spine(async (last) => {
      if (last === 'go') return [agentCall('c1', { instruction: 'one', description: 'first' }), agentCall('c2', { instruction: 'two', description: 'second' })]
      if (last === 'one') return text('did one')
      return text(`read ${last}`)
    }, { maxChildren: 1 })
    const parent = await ctx.agentLoop.createAgent({ id: 'p' })
    await parent.prompt('go')
    const results = parent.session.events().filter((event) => event.type === 'tool/result').map((event) => event.data)
    expect(results).toMatchObject([
      { id: 'c1', output: 'did one', isError: false },
      { id: 'c2', output: 'agent "p" already runs 1 child agent(s), the bound maxChildren = 1; wait for one to end, or raise maxChildren in the app file', isError: true },
    ])
    expect(await ctx.sessions.list()).toEqual(['p', 'p~1'])
    expect(balanced(parent.session.events()) && balanced((await ctx.sessions.open('p~1')).events())).toBe(true)
  })

  it('a child past its parent\'s remaining context window is refused before it starts', async () => {
    const { ctx } = await spine((last) => text(`read ${last.length}`), {}, 3000)
    const parent = await ctx.agentLoop.createAgent({ id: 'p' })
    await parent.prompt('hi')
    const logged = parent.session.lastSeq
    await expect(parent.fork({ mode: 'fork', instruction: 'x'.repeat(12_000), description: 'too much' }))
      .rejects.toThrow(/^the fork's first request needs about \d+ tokens, more than the 3000-token context window of "forking": the parent's request holds about \d+, leaving \d+, and the instruction needs about 3001; shorten the instruction, compact the parent first, or start a "fresh" child$/)
    expect(parent.session.lastSeq).toBe(logged)
    expect(await ctx.sessions.list()).toEqual(['p'])
    expect((await parent.fork({ mode: 'fork', instruction: 'x'.repeat(100), description: 'fits' })).text).toBe('read 100')
  })

  it('a child cancelled mid-turn: the parent\'s cancel cancels it; both turns end cancelled', async () => {
    let started!: () => void
    const waiting = new Promise<void>((resolve) => { started = resolve })
    const { ctx } = await spine(async (last, options) => {
      if (last === 'go') return [agentCall('c1', { instruction: 'wait', description: 'a waiter' })]
      if (last !== 'wait') return text('never')
      started()
      await new Promise((resolve) => options.signal!.addEventListener('abort', resolve, { once: true }))
      return []
    })
    const parent = await ctx.agentLoop.createAgent({ id: 'p' })
    const turn = parent.prompt('go')
    await waiting
    parent.cancel()
    expect(await turn).toMatchObject({ reason: 'cancelled' })
    const child = await ctx.sessions.open('p~1')
    expect(child.events().at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'cancelled' } })
    expect(parent.session.events().find((event) => event.type === 'tool/result')!.data).toMatchObject({ id: 'c1', isError: true, output: 'child agent p~1 ended (cancelled): the turn was cancelled' })
    expect(parent.session.events().at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'cancelled' } })
  })
})
