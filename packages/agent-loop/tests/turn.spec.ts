import { describe, expect, it } from 'vitest'
import { rebuildLastRequest } from '../src/index.ts'
import { recordingAdapter, requestBytes, setup, toolPlugin, types } from './setup.ts'

describe('a turn', () => {
  it('echoes through the scripted model with a balanced log', async () => {
    const { ctx } = await setup()
    const agent = await ctx.agentLoop.createAgent({ id: 'a1' })
    const result = await agent.prompt('hello')
    expect(result).toMatchObject({ turn: 1, reason: 'done', text: 'echo: hello' })
    expect(types(agent.session.events())).toEqual([
      'turn/start', 'user/message', 'step/start', 'request/header', 'assistant/message', 'step/end', 'turn/end',
    ])
    const header = agent.session.requestHeader()!
    expect(header.data.reason).toBe('initial')
    expect(header.data.header.model).toBe('scripted-echo')
    expect(header.data.header.system).toContain('You are terse.')
    expect(agent.status).toBe('idle')
  })

  it('runs a tool call and answers with its result', async () => {
    const { ctx } = await setup()
    await ctx.plugin(toolPlugin('tools-a', ['shout']))
    const agent = await ctx.agentLoop.createAgent()
    const result = await agent.prompt('/call shout {"text":"hi"}')
    expect(result.text).toBe('tool shout returned: shout(hi)')
    expect(types(agent.session.events())).toEqual([
      'turn/start', 'user/message',
      'step/start', 'request/header', 'assistant/message', 'tool/call', 'tool/result', 'step/end',
      'step/start', 'assistant/message', 'step/end',
      'turn/end',
    ])
  })

  it('dispatches exactly the logged header and history, deep-frozen', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    await ctx.plugin(toolPlugin('tools-a', ['b_tool', 'a_tool']))
    const agent = await ctx.agentLoop.createAgent()
    await agent.prompt('one')
    await agent.prompt('two')
    const sent = calls.at(-1)!
    const logged = agent.session.requestHeader()!.data.header
    expect(JSON.stringify({ model: sent.model, system: sent.system, tools: sent.tools })).toBe(JSON.stringify(logged))
    expect(sent.tools.map((tool) => tool.name)).toEqual(['a_tool', 'b_tool'])
    expect(Object.isFrozen(sent)).toBe(true)
    expect(Object.isFrozen(sent.tools[0].parameters)).toBe(true)
    expect(Object.isFrozen(sent.messages)).toBe(true)
    expect(requestBytes(rebuildLastRequest(agent.session.events()) as any)).toBe(requestBytes(sent))
    expect([...sent.messages].map((m) => m.role)).toEqual(['user', 'assistant', 'user'])
  })

  it('turns tool failures into error results the model sees, and the turn goes on', async () => {
    const { adapter, calls } = recordingAdapter([
      () => [
        { type: 'tool-call', call: { id: 'c1', name: 'shout', arguments: { text: 5 } } },
        { type: 'tool-call', call: { id: 'c2', name: 'missing', arguments: {} } },
        { type: 'tool-call', call: { id: 'c3', name: 'boom', arguments: {} } },
        { type: 'done', stopReason: 'tool_use' },
      ],
      () => [{ type: 'text', delta: 'recovered' }],
    ])
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    await ctx.plugin(toolPlugin('tools-a', ['shout']))
    await ctx.plugin({ name: 'boom', inject: ['tools'], apply: (ctx) => {
      ctx.tools.register({ name: 'boom', description: 'fails', parameters: { type: 'object' }, execute: () => { throw new Error('disk on fire') } })
    } })
    const agent = await ctx.agentLoop.createAgent()
    const result = await agent.prompt('go')
    expect(result).toMatchObject({ reason: 'done', text: 'recovered' })
    const toolMessages = [...calls[1].messages].filter((m) => m.role === 'tool')
    expect(toolMessages.map((m: any) => [m.id, m.isError])).toEqual([['c1', true], ['c2', true], ['c3', true]])
    expect((toolMessages[0] as any).output).toMatch(/shout/)
    expect((toolMessages[1] as any).output).toMatch(/missing/)
    expect((toolMessages[2] as any).output).toMatch(/disk on fire/)
  })

  it('ends a runaway turn at the step limit with a clear reason, balanced', async () => {
    const { adapter } = recordingAdapter([() => [{ type: 'tool-call', call: { id: 'x', name: 'shout', arguments: {} } }]])
    const { ctx } = await setup({ adapter, loop: { model: 'recording', maxSteps: 3 } })
    await ctx.plugin(toolPlugin('tools-a', ['shout']))
    const agent = await ctx.agentLoop.createAgent()
    const errors: string[] = []
    ctx.on('agent/error', (_agent, error) => { errors.push(error.message) })
    const result = await agent.prompt('loop forever')
    expect(result.reason).toBe('step_limit')
    expect(result.error).toMatch(/step limit of 3/)
    expect(errors).toEqual([result.error])
    const events = agent.session.events()
    expect(events.filter((e) => e.type === 'step/start')).toHaveLength(3)
    expect(events.filter((e) => e.type === 'step/end')).toHaveLength(3)
    expect(events.at(-1)!.data).toMatchObject({ reason: 'step_limit', error: { message: result.error } })
  })

  it('ends the turn balanced when the model fails, and the next turn works', async () => {
    let fail = true
    const { adapter } = recordingAdapter([() => { if (fail) throw new Error('HTTP 500 from provider'); return [{ type: 'text', delta: 'fine' }] }])
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    const agent = await ctx.agentLoop.createAgent()
    const first = await agent.prompt('a')
    expect(first.reason).toBe('error')
    expect(first.error).toMatch(/HTTP 500 from provider/)
    expect(types(agent.session.events())).toEqual(['turn/start', 'user/message', 'step/start', 'request/header', 'step/end', 'turn/end'])
    fail = false
    expect((await agent.prompt('b')).text).toBe('fine')
  })

  it('fails a turn for an unknown model before any step', async () => {
    const { ctx } = await setup({ loop: { model: 'no-such-model' } })
    const agent = await ctx.agentLoop.createAgent()
    const result = await agent.prompt('hi')
    expect(result.error).toMatch(/unknown model "no-such-model"; served models: scripted-echo/)
    expect(types(agent.session.events())).toEqual(['turn/start', 'user/message', 'turn/end'])
  })

  it('refuses a second prompt while a turn runs', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => { release = resolve })
    const { adapter } = recordingAdapter([async () => { await gate; return [{ type: 'text', delta: 'done' }] }])
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    const agent = await ctx.agentLoop.createAgent()
    const running = agent.prompt('first')
    await expect(agent.prompt('second')).rejects.toThrow(/already running a turn/)
    expect(agent.status).toBe('running')
    release()
    expect((await running).text).toBe('done')
  })

  it('streams live updates to the caller and on agent/update', async () => {
    const { ctx } = await setup()
    await ctx.plugin(toolPlugin('tools-a', ['shout']))
    const agent = await ctx.agentLoop.createAgent()
    const seen: string[] = []
    const broadcast: string[] = []
    ctx.on('agent/update', (_agent, update) => { broadcast.push(update.type) })
    await agent.prompt('/call shout {}', { onUpdate: (update) => { seen.push(update.type) } })
    expect(seen).toContain('tool-call')
    expect(seen).toContain('tool-result')
    expect(seen).toContain('text')
    expect(seen.at(-1)).toBe('turn-end')
    expect(broadcast).toEqual(seen)
  })
})

describe('observers', () => {
  it('a throwing onUpdate or agent/update listener does not fail the turn', async () => {
    const { ctx } = await setup()
    ctx.on('agent/update', () => { throw new Error('listener broke') })
    const agent = await ctx.agentLoop.createAgent()
    const result = await agent.prompt('hi', { onUpdate: () => { throw new Error('caller broke') } })
    expect(result).toMatchObject({ reason: 'done', text: 'echo: hi' })
    expect(agent.session.events().at(-1)!.data).toMatchObject({ reason: 'done' })
  })
})
