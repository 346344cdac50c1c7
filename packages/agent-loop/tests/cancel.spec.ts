import { describe, expect, it } from 'vitest'
import { recordingAdapter, setup, toolPlugin, types } from './setup.ts'

describe('cancellation', () => {
  it('ends a turn waiting on the model with reason cancelled, balanced', async () => {
    const { adapter } = recordingAdapter([(options) => new Promise((_resolve, reject) => {
      options.signal!.addEventListener('abort', () => reject(new Error('aborted by signal')))
    })])
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    const agent = await ctx.agentLoop.createAgent()
    const controller = new AbortController()
    const running = agent.prompt('wait', { signal: controller.signal })
    await new Promise((resolve) => setTimeout(resolve, 20))
    controller.abort()
    const result = await running
    expect(result.reason).toBe('cancelled')
    expect(types(agent.session.events())).toEqual(['turn/start', 'user/message', 'step/start', 'request/header', 'step/end', 'turn/end'])
    expect(agent.session.events().at(-1)!.data).toMatchObject({ reason: 'cancelled' })
    expect(agent.status).toBe('idle')
  })

  it('cancels a running tool through agent.cancel()', async () => {
    const { ctx } = await setup()
    await ctx.plugin({ name: 'slow', inject: ['tools'], apply: (ctx) => {
      ctx.tools.register({
        name: 'slow', description: 'waits', parameters: { type: 'object' },
        execute: (_args, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('stopped'))),
      })
    } })
    const agent = await ctx.agentLoop.createAgent()
    const running = agent.prompt('/call slow {}')
    await new Promise((resolve) => setTimeout(resolve, 30))
    agent.cancel()
    const result = await running
    expect(result.reason).toBe('cancelled')
    const events = agent.session.events()
    expect(types(events).slice(-4)).toEqual(['tool/call', 'tool/result', 'step/end', 'turn/end'])
    expect(events.filter((e) => e.type === 'step/start')).toHaveLength(1)
  })

  it('a cancelled turn does not stop the next one', async () => {
    const { ctx } = await setup()
    await ctx.plugin(toolPlugin('t', ['x']))
    const agent = await ctx.agentLoop.createAgent()
    const controller = new AbortController()
    controller.abort()
    expect((await agent.prompt('a', { signal: controller.signal })).reason).toBe('cancelled')
    expect((await agent.prompt('b')).text).toBe('echo: b')
  })
})
