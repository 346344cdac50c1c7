import type { ToolSchema } from 'dsh-core'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST } from '../src/index.ts'
import { names, setup, tool } from './setup.ts'

async function dynamicProvider(ctx: Context, name: string, get: () => readonly ToolSchema[], known?: () => readonly string[]) {
  await ctx.plugin({ name, inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas: get(), knownNames: known?.() })) } })
}

describe('collection caching never serves a stale answer', () => {
  it('follows a provider that swaps one frozen array for another', async () => {
    const ctx = await setup()
    let current: readonly ToolSchema[] = Object.freeze([tool('b'), tool('a')])
    await dynamicProvider(ctx, 'p', () => current)
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['a', 'b'])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['a', 'b'])
    current = Object.freeze([tool('c'), ...current])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['a', 'b', 'c'])
  })

  it('re-reads a mutable array that the provider changes in place', async () => {
    const ctx = await setup()
    const list: ToolSchema[] = [tool('b')]
    await dynamicProvider(ctx, 'p', () => list)
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['b'])
    list.push(tool('a'))
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['a', 'b'])
  })

  it('finds a duplicate between two frozen lists on every call', async () => {
    const ctx = await setup()
    const first = Object.freeze([tool('a'), tool('same')])
    const second = Object.freeze([tool('same'), tool('z')])
    await dynamicProvider(ctx, 'one', () => first)
    await dynamicProvider(ctx, 'two', () => second)
    for (let i = 0; i < 2; i++) {
      await expect(ctx.systemPrompt.assemble()).rejects.toThrow('tool "same" is contributed twice (by one and two)')
    }
  })

  it('rejects an unknown toolOrder name on every call with frozen lists, and recovers when it appears', async () => {
    const ctx = await setup({ toolOrder: ['late', TOOL_ORDER_REST] })
    const list = Object.freeze([tool('early')])
    let known: readonly string[] = Object.freeze(['early'])
    await dynamicProvider(ctx, 'p', () => list, () => known)
    for (let i = 0; i < 2; i++) await expect(ctx.systemPrompt.assemble()).rejects.toThrow(/unregistered tool "late"/)
    known = Object.freeze(['early', 'late'])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['early'])
  })

  it('rejects the reserved name inside a frozen list on every call', async () => {
    const ctx = await setup()
    const list = Object.freeze([tool(TOOL_ORDER_REST)])
    await dynamicProvider(ctx, 'p', () => list)
    for (let i = 0; i < 2; i++) await expect(ctx.systemPrompt.assemble()).rejects.toThrow(/reserved/)
  })

  it('returns a fresh tools array each time, so one caller\'s edit never leaks into the next assembly', async () => {
    const ctx = await setup()
    const list = Object.freeze([tool('a'), tool('b')])
    await dynamicProvider(ctx, 'p', () => list)
    const first = await ctx.systemPrompt.assemble()
    first.tools.pop()
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['a', 'b'])
  })

  it('reports which plugin contributed each tool', async () => {
    const ctx = await setup()
    await dynamicProvider(ctx, 'one', () => [tool('a')])
    await dynamicProvider(ctx, 'two', () => [tool('b')])
    expect(Object.fromEntries(ctx.systemPrompt.toolOwners())).toEqual({ a: 'one', b: 'two' })
  })
})

describe('inspect()', () => {
  it('shows the canonical list before listeners, the final one after, owners and section orders', async () => {
    const ctx = await setup({ toolOrder: ['b', TOOL_ORDER_REST] })
    await dynamicProvider(ctx, 'one', () => [tool('a'), tool('b')])
    ctx.systemPrompt.section({ name: 'rules', order: 7, text: 'Rules.' })
    ctx.on('system-prompt/assemble', async (assembly, _context, next) => { assembly.tools.reverse(); return next() })
    const inspection = await ctx.systemPrompt.inspect()
    expect(names(inspection.canonical)).toEqual(['b', 'a'])
    expect(names(inspection.assembly.tools)).toEqual(['a', 'b'])
    expect(inspection.owners.get('a')).toBe('one')
    expect(inspection.sectionOrders.get('rules')).toBe(7)
    expect(inspection.toolOrder).toEqual(['b', TOOL_ORDER_REST])
  })
})
