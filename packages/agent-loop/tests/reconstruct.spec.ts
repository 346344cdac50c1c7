import type { GenerateOptions } from 'dsh-llm'
import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { rebuildLastRequest } from '../src/index.ts'
import { recordingAdapter, setup, toolPlugin } from './setup.ts'

/** Everything of a request that reaches an adapter's wire mapping, deferred names included. */
const wireBytes = (request: Partial<GenerateOptions> | undefined) => JSON.stringify({
  model: request?.model, system: request?.system, tools: request?.tools, deferredTools: request?.deferredTools, toolHistory: request?.toolHistory, messages: request?.messages,
})

/** A plugin registering deferred tools (`shouldDefer`), one per name, revealed so that they are declared. */
function deferredPlugin(name: string, tools: string[]) {
  return {
    name,
    inject: ['tools'],
    apply(ctx: Context) {
      for (const tool of tools) {
        ctx.tools.register({
          name: tool, description: `The ${tool} tool.`, shouldDefer: true,
          parameters: { type: 'object', properties: {} }, execute: () => tool,
        } as never)
        ctx.tools.reveal(tool)
      }
    },
  }
}

describe('rebuildLastRequest', () => {
  it('rebuilds every dispatched request from the log alone, byte for byte, deferred tools included', async () => {
    const { adapter, calls } = recordingAdapter([
      () => [{ type: 'tool-call', call: { id: 'c1', name: 'a_tool', arguments: { text: 'x' } } }, { type: 'done', stopReason: 'tool_use' }],
      () => [{ type: 'text', delta: 'done' }, { type: 'done', stopReason: 'end_turn' }],
    ])
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    await ctx.plugin(toolPlugin('tools-a', ['a_tool']))
    await ctx.plugin(deferredPlugin('tools-z', ['z_deferred']))
    const agent = await ctx.agentLoop.createAgent()
    const cuts: number[] = []
    const track = () => {
      const stream = adapter.stream.bind(adapter)
      adapter.stream = (options) => {
        cuts.push(agent.session.events().length)
        return stream(options)
      }
    }
    track()
    await agent.prompt('one')
    await ctx.plugin(deferredPlugin('tools-m', ['m_deferred']))
    await agent.prompt('two')

    expect(calls.length).toBeGreaterThanOrEqual(3)
    expect(calls[0]!.deferredTools).toEqual(['z_deferred'])
    expect(calls.at(-1)!.deferredTools).toEqual(['m_deferred', 'z_deferred'])
    calls.forEach((sent, index) => {
      const events = agent.session.events().slice(0, cuts[index])
      expect(wireBytes(rebuildLastRequest(events))).toBe(wireBytes(sent))
    })
    expect(agent.session.requestHeader()!.data.header.deferredTools).toEqual(['m_deferred', 'z_deferred'])
  })

  it('leaves deferredTools out of the header when no tool is deferred', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    await ctx.plugin(toolPlugin('tools-a', ['a_tool']))
    const agent = await ctx.agentLoop.createAgent()
    await agent.prompt('one')
    expect(agent.session.requestHeader()!.data.header).not.toHaveProperty('deferredTools')
    expect(calls[0]).not.toHaveProperty('deferredTools')
    expect(wireBytes(rebuildLastRequest(agent.session.events()))).toBe(wireBytes(calls[0]))
  })
})
