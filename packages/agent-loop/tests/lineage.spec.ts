import { describe, expect, it } from 'vitest'
import { recordingAdapter, setup } from './setup.ts'

describe('lineage: the session line a request carries', () => {
  it('is set on a route whose adapter pins the model by an affinity field: the session\'s own id', async () => {
    const { adapter, calls } = recordingAdapter()
    adapter.affinity = (model) => (model === 'recording' ? 'id_slot' : undefined)
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    const agent = await ctx.agentLoop.createAgent({ id: 'line-root' })
    await agent.prompt('one')
    expect(calls[0]!.lineage).toEqual({ session: 'line-root' })
    expect(agent.lastRequest!.lineage).toEqual({ session: 'line-root' })
  })

  it('names a forked child\'s parent and mode, from the fork/parent event opening its log', async () => {
    const { adapter, calls } = recordingAdapter()
    adapter.affinity = () => 'id_slot'
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    const agent = await ctx.agentLoop.createAgent({ id: 'line-parent' })
    await agent.prompt('one')
    const forked = await agent.fork({ mode: 'fork', instruction: 'look around', description: 'a look' })
    const fresh = await agent.fork({ mode: 'fresh', instruction: 'start over', description: 'a fresh look' })
    expect(calls.map((call) => call.lineage)).toEqual([
      { session: 'line-parent' },
      { session: forked.child, parent: 'line-parent', mode: 'fork' },
      { session: fresh.child, parent: 'line-parent', mode: 'fresh' },
    ])
    expect(forked.child).toBe('line-parent~1')
  })

  it('is absent on every other route, so their requests keep the bytes the log rebuilds', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    const agent = await ctx.agentLoop.createAgent({ id: 'line-free' })
    await agent.prompt('one')
    expect(calls[0]).not.toHaveProperty('lineage')
  })
})
