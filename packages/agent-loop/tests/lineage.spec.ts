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

  it('is absent on every other route, so their requests keep the bytes the log rebuilds', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx } = await setup({ adapter, loop: { model: 'recording' } })
    const agent = await ctx.agentLoop.createAgent({ id: 'line-free' })
    await agent.prompt('one')
    expect(calls[0]).not.toHaveProperty('lineage')
  })
})
