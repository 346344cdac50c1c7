import { describe, expect, it } from 'vitest'
import type { Context } from 'cordis'
import type { PromptAssembly } from 'dsh-system-prompt'
import { recordingAdapter, setup } from './setup.ts'

/** A plugin written against the published service: it gives one agent its own prompt through `agent.ctx`. */
function reviewerPlugin(agentId: string) {
  return {
    name: 'reviewer',
    inject: ['agentLoop'],
    apply(ctx: Context) {
      const agent = ctx.agentLoop.agent(agentId)
      agent.ctx.systemPrompt.section({ name: 'reviewer', order: 50, text: 'You review code for {{model}}.', complete: true })
      agent.ctx.systemPrompt.suppressRuntimeContext()
    },
  }
}

const datePlugin = {
  name: 'date',
  inject: ['systemPrompt'],
  apply(ctx: Context) {
    ctx.systemPrompt.context({ name: 'date', order: 0, text: 'Today is a test day.' })
  },
}

const snapshots = (events: readonly { type: string }[]) => events.filter((event) => event.type === 'context/snapshot')

describe('agent.ctx: a Cordis context scoped to one agent', () => {
  it('a complete section and a suppressor on one agent change its header alone', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx, dispose } = await setup({ adapter, loop: { model: 'recording' } })
    await ctx.plugin(datePlugin)
    const [a, b] = [await ctx.agentLoop.createAgent({ id: 'a' }), await ctx.agentLoop.createAgent({ id: 'b' })]
    await ctx.plugin(reviewerPlugin('a'))
    await a.prompt('review this')
    await b.prompt('hello')
    expect(calls[0]!.system).toBe('You review code for recording.')
    expect(calls[1]!.system).toContain('You are terse.')
    expect(calls[1]!.system).not.toContain('review')
    expect(snapshots(a.session.events())).toEqual([])
    expect(snapshots(b.session.events())).toHaveLength(1)
    await dispose()
  })

  it('routes agent.ctx.on("system-prompt/assemble") to that agent\'s assemblies only, inside the global listeners', async () => {
    const { adapter, calls } = recordingAdapter()
    const { ctx, dispose } = await setup({ adapter, loop: { model: 'recording' } })
    const [a, b] = [await ctx.agentLoop.createAgent({ id: 'a' }), await ctx.agentLoop.createAgent({ id: 'b' })]
    const seen: string[] = []
    ctx.on('system-prompt/assemble', async (_assembly, context, next) => { seen.push(`global ${context.scope}`); return next() })
    a.ctx.on('system-prompt/assemble', async (assembly: PromptAssembly, context, next) => {
      seen.push(`agent ${context.scope}`)
      assembly.sections.push({ name: 'only-a', text: 'Only agent a reads this.' })
      return next()
    })
    await a.prompt('one')
    await b.prompt('two')
    expect(seen).toEqual(['global a', 'agent a', 'global b'])
    expect(calls[0]!.system).toMatch(/Only agent a reads this\.$/)
    expect(calls[1]!.system).not.toContain('Only agent a')
    await dispose()
  })

  it('leaves with the agent: removeAgent() takes every agent.ctx registration out, and a later one fails loud', async () => {
    const { ctx, dispose } = await setup()
    const changes: string[] = []
    ctx.on('system-prompt/change', (change) => { changes.push(`${change.action} ${change.kind} ${change.scope ?? '-'}`) })
    const a = await ctx.agentLoop.createAgent({ id: 'a' })
    const reviewer = await ctx.plugin(reviewerPlugin('a'))
    a.ctx.on('system-prompt/assemble', async (_assembly, _context, next) => next())
    const global = await ctx.systemPrompt.assemble()
    // what the plugin registered belongs to the agent: it outlives the plugin (a known limitation)
    await reviewer.dispose()
    expect((await ctx.systemPrompt.assemble({ scope: 'a' })).sections.map((section) => section.name)).toEqual(['reviewer'])
    await ctx.agentLoop.removeAgent('a')
    expect(changes.sort()).toEqual([
      'add listener a', 'add section a', 'add suppressor a', 'remove listener a', 'remove section a', 'remove suppressor a',
    ])
    expect(await ctx.systemPrompt.assemble({ scope: 'a' })).toEqual(global)
    expect(() => a.ctx.systemPrompt.section({ name: 'late', order: 1, text: 'Too late.' }))
      .toThrow(expect.objectContaining({ code: 'INACTIVE_SCOPE', message: expect.stringMatching(/systemPrompt\.section\(late\) in scope "a" came through a disposed context/) }))
    expect(() => a.ctx.systemPrompt.suppressRuntimeContext()).toThrow(expect.objectContaining({ code: 'INACTIVE_SCOPE' }))
    // Cordis itself refuses a listener on a disposed context, before the system prompt hears of it.
    expect(() => a.ctx.on('system-prompt/assemble', async (_assembly, _context, next) => next())).toThrow(/inactive context/)
    await dispose()
  })

  it('leaves with the loop: disposing the loop removes what agents registered', async () => {
    const { ctx, dispose } = await setup()
    const a = await ctx.agentLoop.createAgent({ id: 'a' })
    a.ctx.systemPrompt.variable('who', () => 'a')
    const removed: string[] = []
    ctx.on('system-prompt/change', (change) => { if (change.action === 'remove') removed.push(`${change.name} ${change.scope}`) })
    await dispose()
    expect(removed).toContain('who a')
  })
})
