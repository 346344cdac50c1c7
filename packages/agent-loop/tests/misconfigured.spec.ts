import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import { recordingAdapter, setup, toolPlugin } from './setup.ts'

describe('a toolOrder naming an unregistered tool', () => {
  it('fails each turn balanced, with no step, no header and no model call, and the agent stays usable', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx } = await setup({ adapter, loop: { model: 'recording' }, toolOrder: ['read_fiel', TOOL_ORDER_REST] })
    await ctx.plugin(toolPlugin('tools-a', ['read_file', 'grep']))
    const agent = await ctx.agentLoop.createAgent({ id: 'agent' })
    const errors: { turn: number; message: string }[] = []
    ctx.on('agent/error', (_agent, error) => { errors.push(error) })
    const message = 'toolOrder lists unregistered tool "read_fiel"; known tools: grep, read_file'

    for (const turn of [1, 2]) {
      const result = await agent.prompt(`attempt ${turn}`)
      expect(result).toMatchObject({ turn, reason: 'error', error: message })
      expect(agent.status).toBe('idle')
    }
    const events = agent.session.events().map((event) => ({ type: event.type, data: event.data }))
    expect(events).toEqual([
      { type: 'turn/start', data: { turn: 1 } },
      { type: 'user/message', data: { turn: 1, text: 'attempt 1' } },
      { type: 'turn/end', data: { turn: 1, reason: 'error', error: { message } } },
      { type: 'turn/start', data: { turn: 2 } },
      { type: 'user/message', data: { turn: 2, text: 'attempt 2' } },
      { type: 'turn/end', data: { turn: 2, reason: 'error', error: { message } } },
    ])
    expect(errors).toEqual([{ turn: 1, message }, { turn: 2, message }])
    expect(calls).toHaveLength(0)

    await ctx.plugin(toolPlugin('tools-b', ['read_fiel']))
    expect((await agent.prompt('fixed')).reason).toBe('done')
    expect(calls).toHaveLength(1)
  })
})
