import { describe, expect, it } from 'vitest'
import { recordingAdapter, setup, toolPlugin } from './setup.ts'

const headerEvents = (events: readonly any[]) => events.filter((e) => e.type === 'request/header' || e.type === 'developer/message')

describe('request headers and tool-registry messages', () => {
  it('log a change header when a listener reorders tools between steps, with no tool-registry message', async () => {
    const { adapter } = recordingAdapter([
      () => [{ type: 'tool-call', call: { id: 'c1', name: 'alpha', arguments: {} } }],
      () => [{ type: 'text', delta: 'done' }],
    ])
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    await ctx.plugin(toolPlugin('tools-a', ['alpha', 'beta']))
    let reversed = false
    ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
      if (reversed) assembly.tools.reverse()
      return next()
    })
    ctx.on('agent/update', (_agent, update) => { if (update.type === 'tool-result') reversed = true })
    const agent = await ctx.agentLoop.createAgent()
    await agent.prompt('go')
    const logged = headerEvents(agent.session.events())
    expect(logged.map((e) => [e.type, e.data.reason, e.data.step])).toEqual([
      ['request/header', 'initial', 1],
      ['request/header', 'change', 2],
    ])
    expect(logged[1].data.header.tools.map((t: any) => t.name)).toEqual(['beta', 'alpha'])
  })

  it('does not log the same header twice', async () => {
    const { ctx } = await setup()
    const agent = await ctx.agentLoop.createAgent()
    await agent.prompt('a')
    await agent.prompt('b')
    expect(headerEvents(agent.session.events())).toHaveLength(1)
  })

  it('logs added and removed tool names once, pointing at the new header', async () => {
    const { ctx } = await setup()
    const agent = await ctx.agentLoop.createAgent()
    const first = await ctx.plugin(toolPlugin('tools-a', ['alpha']))
    await agent.prompt('one')
    await ctx.plugin(toolPlugin('tools-b', ['beta', 'gamma']))
    await agent.prompt('two')
    await first.dispose()
    await agent.prompt('three')
    const logged = headerEvents(agent.session.events())
    expect(logged.map((e) => e.type)).toEqual(['request/header', 'request/header', 'developer/message', 'request/header', 'developer/message'])
    expect(logged[2].data).toMatchObject({ source: 'tool-registry', added: ['beta', 'gamma'], removed: [], headerSeq: logged[1].seq })
    expect(logged[4].data).toMatchObject({ added: [], removed: ['alpha'], headerSeq: logged[3].seq })
    const developer = [...agent.session.messages()].filter((m) => m.role === 'developer')
    expect(developer).toHaveLength(2)
  })

  it('treats a changed definition of a kept name as a header change only', async () => {
    const { ctx } = await setup()
    const agent = await ctx.agentLoop.createAgent()
    const v1 = await ctx.plugin(toolPlugin('tools-a', ['alpha']))
    await agent.prompt('one')
    await v1.dispose()
    await ctx.plugin({ name: 'v2', inject: ['tools'], apply: (ctx) => {
      ctx.tools.register({ name: 'alpha', description: 'A new description.', parameters: { type: 'object' }, execute: () => 'x' })
    } })
    await agent.prompt('two')
    expect(headerEvents(agent.session.events()).map((e) => e.type)).toEqual(['request/header', 'request/header'])
  })
})
