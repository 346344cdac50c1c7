import type { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { ToolsError } from '../src/errors.ts'
import { setup, tool } from './setup.ts'

const run = (ctx: Context, name: string, apply: (ctx: Context) => void) => ctx.plugin({ name, inject: ['tools'], apply })

describe('tools.origin()', () => {
  it('names the registering plugin, one by one or in a listing, and the server it names', async () => {
    const ctx = await setup()
    await run(ctx, 'one', (ctx) => { ctx.tools.register(tool('a')) })
    await run(ctx, 'many', (ctx) => { ctx.tools.registerMany([tool('b'), tool('c')]) })
    await run(ctx, 'bridge', (ctx) => {
      ctx.tools.register(tool('d'), { server: 'files' })
      ctx.tools.registerMany([tool('e')], { server: 'notes' })
    })
    expect(['a', 'b', 'c', 'd', 'e', 'none'].map((name) => ctx.tools.origin(name))).toEqual([
      { plugin: 'one', entry: undefined },
      { plugin: 'many', entry: undefined },
      { plugin: 'many', entry: undefined },
      { plugin: 'bridge', entry: undefined, server: 'files' },
      { plugin: 'bridge', entry: undefined, server: 'notes' },
      undefined,
    ])
  })

  it('sees an agent\'s own tools with its agentId, and follows a name to its new owner', async () => {
    const ctx = await setup()
    let dispose!: () => Promise<void>
    await run(ctx, 'first', (ctx) => { dispose = ctx.tools.register(tool('x')) })
    await run(ctx, 'session', (ctx) => { ctx.tools.register(tool('y'), { agentId: 'agent-1', server: 'editor' }) })
    expect(ctx.tools.origin('y')).toBeUndefined()
    expect(ctx.tools.origin('y', { agentId: 'agent-1' })).toEqual({ plugin: 'session', entry: undefined, server: 'editor' })
    await dispose()
    expect(ctx.tools.origin('x')).toBeUndefined()
    await run(ctx, 'second', (ctx) => { ctx.tools.register(tool('x')) })
    expect(ctx.tools.origin('x')?.plugin).toBe('second')
  })

  it('is frozen data', async () => {
    const ctx = await setup()
    await run(ctx, 'one', (ctx) => { ctx.tools.register(tool('a'), { server: 's' }) })
    expect(Object.isFrozen(ctx.tools.origin('a'))).toBe(true)
  })

  it.each([[''], [7], [null], [{ name: 's' }]])('refuses server %j, naming it, and registers nothing', async (server) => {
    const ctx = await setup()
    await run(ctx, 'bad', (ctx) => {
      expect(() => ctx.tools.register(tool('a'), { server } as never)).toThrow(ToolsError)
      expect(() => ctx.tools.register(tool('a'), { server } as never)).toThrow(/^tools\.register\(\) takes server as a non-empty string or omitted, got /)
      expect(() => ctx.tools.registerMany([tool('b')], { server } as never)).toThrow(/^tools\.registerMany\(\) takes server as a non-empty string or omitted, got /)
    })
    expect(ctx.tools.list()).toEqual([])
  })
})
