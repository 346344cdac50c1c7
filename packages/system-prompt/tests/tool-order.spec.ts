import { compareCodeUnits } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { SystemPromptError, TOOL_ORDER_REST } from '../src/index.ts'
import { names, provide, setup, tool } from './setup.ts'

describe('canonical tool order', () => {
  it('sorts by code units when toolOrder is unset, not by locale', async () => {
    const ctx = await setup()
    await provide(ctx, 'p1', [tool('zeta'), tool('Alpha'), tool('_x')])
    await provide(ctx, 'p2', [tool('alpha'), tool('émile'), tool('Zulu'), tool('a-b'), tool('a_b')])
    const { tools } = await ctx.systemPrompt.assemble()
    expect(names(tools)).toEqual(['Alpha', 'Zulu', '_x', 'a-b', 'a_b', 'alpha', 'zeta', 'émile'])
    const localeOrder = [...names(tools)].sort((a, b) => a.localeCompare(b))
    expect(localeOrder).not.toEqual(names(tools))
  })

  it('puts listed tools at their positions and the rest, sorted, at the rest entry', async () => {
    const ctx = await setup({ toolOrder: ['write', TOOL_ORDER_REST, 'read'] })
    await provide(ctx, 'p1', [tool('read'), tool('zip'), tool('write')])
    await provide(ctx, 'p2', [tool('grep'), tool('Bash')])
    const { tools } = await ctx.systemPrompt.assemble()
    expect(names(tools)).toEqual(['write', 'Bash', 'grep', 'zip', 'read'])
  })

  it('rejects every assemble() while a listed name is unknown, naming it and the known tools', async () => {
    const ctx = await setup({ toolOrder: ['reed', TOOL_ORDER_REST] })
    await provide(ctx, 'p1', [tool('read'), tool('write')])
    for (let attempt = 0; attempt < 3; attempt++) {
      const error = await ctx.systemPrompt.assemble().catch((error) => error)
      expect(error).toBeInstanceOf(SystemPromptError)
      expect(error.code).toBe('UNKNOWN_TOOL_ORDER_NAME')
      expect(error.message).toBe('toolOrder lists unregistered tool "reed"; known tools: read, write')
    }
    await provide(ctx, 'p2', [tool('reed')])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['reed', 'read', 'write'])
  })

  it('names every unknown listed tool at once', async () => {
    const ctx = await setup({ toolOrder: ['a', 'b', TOOL_ORDER_REST] })
    await expect(ctx.systemPrompt.assemble()).rejects.toThrow('toolOrder lists unregistered tools "a", "b"; known tools: (none)')
  })

  it('leaves a known but hidden listed tool simply absent', async () => {
    const ctx = await setup({ toolOrder: ['hidden', 'shown', TOOL_ORDER_REST] })
    await provide(ctx, 'p1', [tool('shown'), tool('other')], ['shown', 'other', 'hidden'])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['shown', 'other'])
  })

  it('rejects the reserved rest-entry name from a provider', async () => {
    const ctx = await setup()
    await provide(ctx, 'sneaky', [tool(TOOL_ORDER_REST)])
    const error = await ctx.systemPrompt.assemble().catch((error) => error)
    expect(error.code).toBe('RESERVED_TOOL_NAME')
    expect(error.message).toContain('"<unlisted-tools>"')
    expect(error.message).toContain('sneaky')
  })

  it('rejects a tool name contributed by two providers, naming the tool and both providers', async () => {
    const ctx = await setup()
    await provide(ctx, 'first', [tool('read')])
    await provide(ctx, 'second', [tool('read', 'another read')])
    const error = await ctx.systemPrompt.assemble().catch((error) => error)
    expect(error.code).toBe('DUPLICATE_TOOL')
    expect(error.message).toMatch(/tool "read" is contributed twice \(by first and second\)/)
  })

  it('rejects a provider that returns something other than schemas', async () => {
    const ctx = await setup()
    await ctx.plugin({ name: 'broken', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({}) as any) } })
    await expect(ctx.systemPrompt.assemble()).rejects.toThrow(/tool provider broken must return \{ schemas/)
  })

  it.each([
    [{ name: '', description: '', parameters: {} }, /name is not a non-empty string/],
    [{ name: 'x', description: 3, parameters: {} }, /description that is not a string/],
    [{ name: 'x', description: '', parameters: [] }, /parameters that are not a JSON Schema object/],
  ])('rejects a malformed schema %j', async (schema, message) => {
    const ctx = await setup()
    await provide(ctx, 'bad', [schema as any])
    await expect(ctx.systemPrompt.assemble()).rejects.toThrow(message)
  })

  it('drops a provider with its plugin', async () => {
    const ctx = await setup()
    const fiber = await provide(ctx, 'p1', [tool('a')])
    await provide(ctx, 'p2', [tool('b')])
    await fiber.dispose()
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['b'])
  })

  it('compares code units', () => {
    expect(['b', 'B', 'a', 'é', 'Z', '_'].sort(compareCodeUnits)).toEqual(['B', 'Z', '_', 'a', 'b', 'é'])
  })
})

describe('the system-prompt/assemble waterfall', () => {
  it('starts from the canonical list', async () => {
    const ctx = await setup()
    await provide(ctx, 'p1', [tool('c'), tool('a'), tool('b')])
    let seen: string[] = []
    ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
      seen = names(assembly.tools)
      return next()
    })
    await ctx.systemPrompt.assemble()
    expect(seen).toEqual(['a', 'b', 'c'])
  })

  it('keeps a listener edit authoritative and does not re-sort what it adds', async () => {
    const ctx = await setup()
    await provide(ctx, 'p1', [tool('b'), tool('a')])
    ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
      assembly.tools.push(tool('0-first-by-name'))
      assembly.tools.reverse()
      return next()
    })
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['0-first-by-name', 'b', 'a'])
  })

  it('lets a listener return a different assembly', async () => {
    const ctx = await setup()
    await provide(ctx, 'p1', [tool('a')])
    ctx.on('system-prompt/assemble', async (assembly, context, next) => {
      const inner = await next()
      return { ...inner, tools: [], sections: [...inner.sections, { name: 'extra', text: `for ${context.model}` }] }
    })
    const assembly = await ctx.systemPrompt.assemble({ model: 'm1' })
    expect(assembly.tools).toEqual([])
    expect(assembly.sections.at(-1)).toEqual({ name: 'extra', text: 'for m1' })
  })

  it('rejects a listener that introduces a duplicate or the reserved name', async () => {
    const ctx = await setup()
    await provide(ctx, 'p1', [tool('a')])
    const dispose = ctx.on('system-prompt/assemble', async (assembly, _c, next) => { assembly.tools.push(tool('a')); return next() })
    await expect(ctx.systemPrompt.assemble()).rejects.toThrow(/lists tool "a" twice/)
    dispose()
    ctx.on('system-prompt/assemble', async (assembly, _c, next) => { assembly.tools.push(tool(TOOL_ORDER_REST)); return next() })
    await expect(ctx.systemPrompt.assemble()).rejects.toThrow(/reserved/)
  })
})
