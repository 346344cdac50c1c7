import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { names, recordChanges, setup, tool, toolError } from './setup.ts'

describe('tools registered for one agent', () => {
  it('appear only in that agent\'s assemblies, beside the tools for every agent', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('shared'))
    ctx.tools.register(tool('mine'), { agentId: 'a' })
    expect(names((await ctx.systemPrompt.assemble({ scope: 'a' })).tools)).toEqual(['mine', 'shared'])
    expect(names((await ctx.systemPrompt.assemble({ scope: 'b' })).tools)).toEqual(['shared'])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['shared'])
    expect(ctx.tools.list({ agentId: 'a' })).toEqual(['mine', 'shared'])
    expect(ctx.tools.list()).toEqual(['shared'])
    expect(ctx.tools.visibleNames({ agentId: 'a' })).toEqual(['mine', 'shared'])
    expect(ctx.tools.has('mine')).toBe(false)
    expect(ctx.tools.get('mine', { agentId: 'a' })?.name).toBe('mine')
  })

  it('run only for that agent', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('mine'), { agentId: 'a' })
    expect(await ctx.tools.execute('mine', { input: 'x' }, { agentId: 'a' })).toEqual({ output: 'x', isError: false })
    expect(await ctx.tools.execute('mine', { input: 'x' }, { agentId: 'b' })).toEqual({ output: 'unknown tool "mine"; available tools: (none)', isError: true })
    expect((await ctx.tools.execute('mine', {})).isError).toBe(true)
  })

  it('come as one batch with registerMany({ agentId }): only that agent sees them, each removable alone, refused beside a tool for every agent', async () => {
    const ctx = await setup()
    const changes = recordChanges(ctx)
    ctx.tools.register(tool('shared'))
    const batch = ctx.tools.registerMany([tool('one'), tool('two')], { agentId: 'a', server: 'notes' })
    expect(ctx.tools.list({ agentId: 'a' })).toEqual(['one', 'shared', 'two'])
    expect(ctx.tools.list({ agentId: 'b' })).toEqual(['shared'])
    expect(names((await ctx.systemPrompt.assemble({ scope: 'a' })).tools)).toEqual(['one', 'shared', 'two'])
    expect(names((await ctx.systemPrompt.assemble({ scope: 'b' })).tools)).toEqual(['shared'])
    expect(ctx.tools.origin('one', { agentId: 'a' })?.server).toBe('notes')
    expect(() => ctx.tools.registerMany([tool('shared')], { agentId: 'a' }))
      .toThrow('tool "shared" is already registered for every agent; it cannot also be registered for agent "a"')
    await batch.each[0]!()
    expect(ctx.tools.list({ agentId: 'a' })).toEqual(['shared', 'two'])
    await batch()
    expect(names((await ctx.systemPrompt.assemble({ scope: 'a' })).tools)).toEqual(['shared'])
    expect(changes.filter((change) => change.agentId === 'a').map((change) => `${change.action} ${change.name}`))
      .toEqual(['register one', 'register two', 'unregister one', 'unregister two'])
  })

  it('may share a name across agents, each calling its own', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('read', { execute: () => 'from a' }), { agentId: 'a' })
    ctx.tools.register(tool('read', { execute: () => 'from b' }), { agentId: 'b' })
    expect((await ctx.tools.execute('read', {}, { agentId: 'a' })).output).toBe('from a')
    expect((await ctx.tools.execute('read', {}, { agentId: 'b' })).output).toBe('from b')
    expect(names((await ctx.systemPrompt.assemble({ scope: 'b' })).tools)).toEqual(['read'])
  })

  it('refuse a name taken for every agent, and the other way round, naming the holder', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('shared'))
    ctx.tools.register(tool('mine'), { agentId: 'a' })
    const scoped = toolError(() => ctx.tools.register(tool('shared'), { agentId: 'a' }))
    expect(scoped.code).toBe('DUPLICATE_TOOL')
    expect(scoped.message).toBe('tool "shared" is already registered for every agent; it cannot also be registered for agent "a"')
    const global = toolError(() => ctx.tools.register(tool('mine')))
    expect(global.message).toBe('tool "mine" is already registered for agent "a"; it cannot also be registered for every agent')
    expect(toolError(() => ctx.tools.register(tool('mine'), { agentId: 'a' })).message).toBe('tool "mine" is already registered')
    expect(ctx.tools.list({ agentId: 'a' })).toEqual(['mine', 'shared'])
  })

  it.each([[''], [42], [null]])('refuse agentId %j', async (agentId) => {
    const ctx = await setup()
    const error = toolError(() => ctx.tools.register(tool('x'), { agentId: agentId as string }))
    expect(error.code).toBe('INVALID_TOOL')
    expect(error.message).toMatch(/takes agentId as a non-empty string or omitted, got/)
  })

  it('cannot be deferred', async () => {
    const ctx = await setup()
    const error = toolError(() => ctx.tools.register(tool('later', { shouldDefer: true }), { agentId: 'a' }))
    expect(error.message).toBe('tool "later" is registered for agent "a" and cannot be deferred; only tools for every agent can')
    expect(ctx.tools.list({ agentId: 'a' })).toEqual([])
  })

  it('go away with their disposer, announced with the agent id', async () => {
    const ctx = await setup()
    const changes = recordChanges(ctx)
    const dispose = ctx.tools.register(tool('mine'), { agentId: 'a' })
    await dispose()
    expect(changes).toEqual([{ action: 'register', name: 'mine', agentId: 'a' }, { action: 'unregister', name: 'mine', agentId: 'a' }])
    expect(names((await ctx.systemPrompt.assemble({ scope: 'a' })).tools)).toEqual([])
    // the name is free again, for every agent too
    ctx.tools.register(tool('mine'))
    expect(ctx.tools.list()).toEqual(['mine'])
  })

  it('keep an assembly the same frozen list while nothing changes, and rebuild it after a change', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('shared'))
    ctx.tools.register(tool('mine'), { agentId: 'a' })
    const first = (await ctx.systemPrompt.assemble({ scope: 'a' })).tools
    expect((await ctx.systemPrompt.assemble({ scope: 'a' })).tools[0]).toBe(first[0])
    ctx.tools.register(tool('more'), { agentId: 'a' })
    expect(names((await ctx.systemPrompt.assemble({ scope: 'a' })).tools)).toEqual(['mine', 'more', 'shared'])
  })

  it('give each agent the same canonical list whatever the order of registration', async () => {
    await fc.assert(fc.asyncProperty(
      fc.shuffledSubarray(['g1', 'g2', 'a1', 'a2', 'b1'], { minLength: 5, maxLength: 5 }),
      async (order) => {
        const ctx = await setup()
        for (const name of order) ctx.tools.register(tool(name), name.startsWith('g') ? {} : { agentId: name[0] })
        expect(names((await ctx.systemPrompt.assemble({ scope: 'a' })).tools)).toEqual(['a1', 'a2', 'g1', 'g2'])
        expect(names((await ctx.systemPrompt.assemble({ scope: 'b' })).tools)).toEqual(['b1', 'g1', 'g2'])
      },
    ), { numRuns: 30 })
  })
})
