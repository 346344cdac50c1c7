import fc from 'fast-check'
import SystemPrompt, { SystemPromptError, TOOL_ORDER_REST } from 'dsh-system-prompt'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { names, plugin, setup, tool } from './setup.ts'

/** Captures the provider function ToolRuntime hands to systemPrompt.tools() while it loads. */
async function setupWithProvider(prompt = {}) {
  const spy = vi.spyOn(SystemPrompt.prototype, 'tools')
  const ctx = await setup({}, prompt)
  const provider = spy.mock.calls.at(-1)![0] as Parameters<SystemPrompt['tools']>[0]
  spy.mockRestore()
  return { ctx, provider }
}

afterEach(() => { vi.restoreAllMocks() })

describe('the systemPrompt tool provider', () => {
  it('shows tools in canonical code-unit order whatever order they were registered in', async () => {
    const all = ['zeta', 'Alpha', 'a_b', 'a-b', 'mcp__github__search', 'mcp__fs__read']
    const sorted = ['Alpha', 'a-b', 'a_b', 'mcp__fs__read', 'mcp__github__search', 'zeta']
    await fc.assert(fc.asyncProperty(fc.shuffledSubarray(all, { minLength: all.length }), async (order) => {
      const ctx = await setup()
      for (const name of order) ctx.tools.register(tool(name))
      expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(sorted)
    }), { numRuns: 30 })
  })

  it('follows a configured toolOrder regardless of which plugin loaded first', async () => {
    for (const [first, second] of [['files', 'shell'], ['shell', 'files']]) {
      const ctx = await setup({}, { toolOrder: ['write', TOOL_ORDER_REST, 'bash'] })
      const groups: Record<string, string[]> = { files: ['read', 'write'], shell: ['bash', 'grep'] }
      await plugin(ctx, first, groups[first].map((name) => tool(name)))
      await plugin(ctx, second, groups[second].map((name) => tool(name)))
      expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['write', 'grep', 'read', 'bash'])
    }
  })

  it('hands the assembly the same frozen schema object on every assembly', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('read'))
    ctx.tools.register(tool('write'))
    const first = (await ctx.systemPrompt.assemble()).tools
    ctx.tools.register(tool('bash'))
    const second = (await ctx.systemPrompt.assemble()).tools
    expect(second[1]).toBe(first[0])
    expect(second[2]).toBe(first[1])
    expect(Object.isFrozen(first[0])).toBe(true)
    expect(Object.isFrozen(first[0].parameters)).toBe(true)
    expect(first[0]).toEqual({ name: 'read', description: 'the read tool', parameters: { type: 'object', properties: { input: { type: 'string' } } } })
  })

  it('answers with the same result object until membership or visibility changes', async () => {
    const { ctx, provider } = await setupWithProvider()
    ctx.tools.register(tool('read'))
    ctx.tools.register(tool('find', { shouldDefer: true }))
    const first = provider({})
    expect(provider({})).toBe(first)
    expect(names(first.schemas)).toEqual(['read'])
    expect([...first.knownNames!].sort()).toEqual(['find', 'read'])
    expect(Object.isFrozen(first.schemas)).toBe(true)

    ctx.tools.reveal('find')
    const revealed = provider({})
    expect(revealed).not.toBe(first)
    expect(revealed.schemas[0]).toBe(first.schemas[0])
    expect(names(revealed.schemas)).toEqual(['read', 'find'])

    ctx.tools.reveal('find')
    expect(provider({})).toBe(revealed)
    const dispose = ctx.tools.register(tool('bash'))
    const grown = provider({})
    expect(grown).not.toBe(revealed)
    await dispose()
    expect(provider({})).not.toBe(grown)
  })

  it('provides in registration order and leaves the sorting to the assembly', async () => {
    const { ctx, provider } = await setupWithProvider()
    for (const name of ['c', 'a', 'b']) ctx.tools.register(tool(name))
    expect(names(provider({}).schemas)).toEqual(['c', 'a', 'b'])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['a', 'b', 'c'])
  })

  it('lets a toolOrder name an unknown tool fail the assembly until it registers', async () => {
    const ctx = await setup({}, { toolOrder: ['read', TOOL_ORDER_REST] })
    ctx.tools.register(tool('write'))
    const error = await ctx.systemPrompt.assemble().catch((error) => error)
    expect(error).toBeInstanceOf(SystemPromptError)
    expect(error.message).toBe('toolOrder lists unregistered tool "read"; known tools: write')
    ctx.tools.register(tool('read'))
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['read', 'write'])
  })
})
