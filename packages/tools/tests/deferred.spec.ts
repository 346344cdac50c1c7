import { SystemPromptError, TOOL_ORDER_REST } from 'dsh-system-prompt'
import { describe, expect, it } from 'vitest'
import { ToolsError } from '../src/errors.ts'
import { names, recordChanges, setup, tool } from './setup.ts'

const assembled = async (ctx: Awaited<ReturnType<typeof setup>>) => names((await ctx.systemPrompt.assemble()).tools)

describe('deferred tools', () => {
  it('hides a shouldDefer tool until reveal(), shows it at its canonical place, and hides it again on unreveal()', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('visible-z'))
    ctx.tools.register(tool('hidden-a', { shouldDefer: true }))
    ctx.tools.register(tool('visible-m'))
    expect(await assembled(ctx)).toEqual(['visible-m', 'visible-z'])
    expect(ctx.tools.visibleNames()).toEqual(['visible-m', 'visible-z'])
    expect(ctx.tools.list()).toEqual(['hidden-a', 'visible-m', 'visible-z'])

    expect(ctx.tools.reveal('hidden-a')).toBe(true)
    expect(await assembled(ctx)).toEqual(['hidden-a', 'visible-m', 'visible-z'])
    expect(ctx.tools.visibleNames()).toEqual(['hidden-a', 'visible-m', 'visible-z'])

    expect(ctx.tools.unreveal('hidden-a')).toBe(true)
    expect(await assembled(ctx)).toEqual(['visible-m', 'visible-z'])
  })

  it('keeps an alwaysLoad deferred tool visible and out of deferredNames()', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('z', { shouldDefer: true, alwaysLoad: true }))
    ctx.tools.register(tool('a'))
    ctx.tools.register(tool('q', { shouldDefer: true }))
    ctx.tools.register(tool('b', { shouldDefer: true }))
    expect(await assembled(ctx)).toEqual(['a', 'z'])
    expect(ctx.tools.deferredNames()).toEqual(['b', 'q'])
    expect(ctx.tools.unreveal('z')).toBe(false)
    expect(await assembled(ctx)).toEqual(['a', 'z'])
  })

  it('lists deferred names in code-unit order, revealed or not', async () => {
    const ctx = await setup()
    for (const name of ['beta', 'Zed', 'alpha']) ctx.tools.register(tool(name, { shouldDefer: true }))
    ctx.tools.reveal('beta')
    expect(ctx.tools.deferredNames()).toEqual(['Zed', 'alpha', 'beta'])
  })

  it('lets toolOrder name a hidden deferred tool without rejecting the assembly', async () => {
    const ctx = await setup({}, { toolOrder: ['search', 'read', TOOL_ORDER_REST] })
    ctx.tools.register(tool('read'))
    ctx.tools.register(tool('search', { shouldDefer: true }))
    expect(await assembled(ctx)).toEqual(['read'])
    ctx.tools.reveal('search')
    expect(await assembled(ctx)).toEqual(['search', 'read'])
  })

  it('still rejects a toolOrder naming a tool nobody registered, listing hidden tools as known', async () => {
    const ctx = await setup({}, { toolOrder: ['ghost', TOOL_ORDER_REST] })
    ctx.tools.register(tool('read'))
    ctx.tools.register(tool('search', { shouldDefer: true }))
    const error = await ctx.systemPrompt.assemble().catch((error) => error)
    expect(error).toBeInstanceOf(SystemPromptError)
    expect(error.code).toBe('UNKNOWN_TOOL_ORDER_NAME')
    expect(error.message).toBe('toolOrder lists unregistered tool "ghost"; known tools: read, search')
  })

  it('throws on reveal or unreveal of an unknown name, naming it and the known tools', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('read'))
    ctx.tools.register(tool('search', { shouldDefer: true }))
    for (const call of [() => ctx.tools.reveal('serch'), () => ctx.tools.unreveal('serch')]) {
      const error = (() => { try { call() } catch (error) { return error } })() as ToolsError
      expect(error).toBeInstanceOf(ToolsError)
      expect(error.code).toBe('UNKNOWN_TOOL')
      expect(error.message).toMatch(/^cannot (reveal|unreveal) unknown tool "serch"; known tools: read, search$/)
    }
  })

  it('treats reveal of a non-deferred or already revealed tool as a no-op without an event', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('read'))
    ctx.tools.register(tool('search', { shouldDefer: true }))
    const changes = recordChanges(ctx)
    expect(ctx.tools.reveal('read')).toBe(false)
    expect(ctx.tools.unreveal('search')).toBe(false)
    expect(ctx.tools.reveal('search')).toBe(true)
    expect(ctx.tools.reveal('search')).toBe(false)
    expect(changes).toEqual([{ action: 'reveal', name: 'search' }])
  })

  it('forgets a reveal when the tool is unregistered', async () => {
    const ctx = await setup()
    const dispose = ctx.tools.register(tool('search', { shouldDefer: true }))
    ctx.tools.reveal('search')
    await dispose()
    ctx.tools.register(tool('search', { shouldDefer: true }))
    expect(await assembled(ctx)).toEqual([])
  })

  it('runs a hidden deferred tool when called by name', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('search', { shouldDefer: true }))
    expect(await ctx.tools.execute('search', { input: 'x' })).toEqual({ output: 'x', isError: false })
  })
})
