import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import { names, plugin, setup, tool, toolError } from './setup.ts'

describe('tools.register()', () => {
  it('accepts the full provider name alphabet up to 64 characters', async () => {
    const ctx = await setup()
    const longest = 'a'.repeat(64)
    for (const name of ['read', 'Read_File-2', '_', '-', longest]) ctx.tools.register(tool(name))
    expect(ctx.tools.list()).toEqual(['-', 'Read_File-2', '_', longest, 'read'])
  })

  it.each([
    ['a'.repeat(65), 'INVALID_TOOL_NAME', /must match .* \(it has 65 characters\)/],
    ['', 'INVALID_TOOL_NAME', /tool name "" must match/],
    ['read file', 'INVALID_TOOL_NAME', /tool name "read file" must match/],
    ['read.file', 'INVALID_TOOL_NAME', /tool name "read.file" must match/],
    ['ré', 'INVALID_TOOL_NAME', /tool name "ré" must match/],
    [TOOL_ORDER_REST, 'RESERVED_TOOL_NAME', /tool name "<unlisted-tools>" is reserved for toolOrder's rest entry/],
    [42, 'INVALID_TOOL_NAME', /tool name 42 must match/],
  ])('rejects the name %j', async (name, code, message) => {
    const ctx = await setup()
    const error = toolError(() => ctx.tools.register(tool(name as string)))
    expect(error.code).toBe(code)
    expect(error.message).toMatch(message)
    expect(ctx.tools.list()).toEqual([])
  })

  it('keeps readOnlyHint and destructiveHint, frozen and out of the schema; other annotation keys are dropped', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('t', { annotations: { readOnlyHint: true, title: 'T', openWorldHint: false } } as any))
    const annotations = ctx.tools.get('t')?.annotations
    expect(annotations).toEqual({ readOnlyHint: true })
    expect(Object.isFrozen(annotations)).toBe(true)
    const assembled = await ctx.systemPrompt.assemble()
    expect(assembled.tools.find((schema) => schema.name === 't')).not.toHaveProperty('annotations')
  })

  it('rejects a duplicate name and keeps the first registration', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('read', { description: 'first' }))
    const error = toolError(() => ctx.tools.register(tool('read', { description: 'second' })))
    expect(error.code).toBe('DUPLICATE_TOOL')
    expect(error.message).toBe('tool "read" is already registered')
    expect(ctx.tools.get('read')?.description).toBe('first')
  })

  it.each([
    [{ parameters: { type: 'string' } }, 'INVALID_PARAMETERS', /tool "t" needs parameters with type "object" at the root .*got type "string"/],
    [{ parameters: {} }, 'INVALID_PARAMETERS', /tool "t" needs parameters with type "object" at the root .*got type undefined/],
    [{ parameters: [] }, 'INVALID_PARAMETERS', /tool "t" needs parameters as a JSON Schema object, got an array/],
    [{ parameters: { type: 'object', default: new Date(0) } }, 'INVALID_PARAMETERS', /tool "t" has parameters that are not plain JSON: parameters.default is a Date/],
    [{ parameters: { type: 'object', maximum: Infinity } }, 'INVALID_PARAMETERS', /parameters.maximum is Infinity/],
    [{ parameters: { type: 'object', properties: { f: () => 1 } } }, 'INVALID_PARAMETERS', /parameters.properties.f is a function/],
    [{ description: undefined }, 'INVALID_TOOL', /tool "t" needs a description string, got undefined/],
    [{ execute: 'run' }, 'INVALID_TOOL', /tool "t" needs an execute function, got "run"/],
    [{ shouldDefer: 'yes' }, 'INVALID_TOOL', /tool "t" has shouldDefer "yes"; it must be true, false or omitted/],
    [{ alwaysLoad: 1 }, 'INVALID_TOOL', /tool "t" has alwaysLoad 1/],
    [{ timeoutMs: 0 }, 'INVALID_TOOL', /tool "t" timeoutMs must be an integer number of milliseconds from 1 to 2147483647, got 0/],
    [{ timeoutMs: 2 ** 31 }, 'INVALID_TOOL', /tool "t" timeoutMs must be .* got 2147483648/],
    [{ timeoutMs: 1.5 }, 'INVALID_TOOL', /got 1.5/],
    [{ annotations: 'read-only' }, 'INVALID_TOOL', /tool "t" has annotations "read-only"; they must be an object such as \{ readOnlyHint: true \} or omitted/],
    [{ annotations: [] }, 'INVALID_TOOL', /tool "t" has annotations .*they must be an object/],
    [{ annotations: { readOnlyHint: 'yes' } }, 'INVALID_TOOL', /tool "t" has annotations.readOnlyHint "yes"; it must be true, false or omitted/],
    [{ annotations: { destructiveHint: 1 } }, 'INVALID_TOOL', /tool "t" has annotations.destructiveHint 1/],
  ])('rejects the definition fields %o', async (fields, code, message) => {
    const ctx = await setup()
    const error = toolError(() => ctx.tools.register(tool('t', fields as any)))
    expect(error.code).toBe(code)
    expect(error.message).toMatch(message)
    expect(ctx.tools.has('t')).toBe(false)
  })

  it('rejects parameters that refer to themselves', async () => {
    const ctx = await setup()
    const parameters: Record<string, unknown> = { type: 'object' }
    parameters.not = parameters
    const error = toolError(() => ctx.tools.register(tool('loop', { parameters })))
    expect(error.message).toBe('tool "loop" has parameters that are not plain JSON: parameters.not refers back to itself')
  })

  it('rejects something that is not a definition', async () => {
    const ctx = await setup()
    expect(toolError(() => ctx.tools.register(null as any)).message).toBe('tools.register() needs a tool definition object, got null')
  })

  it('lets two tools share a $id without clashing', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('a', { parameters: { $id: 'args', type: 'object', properties: { n: { type: 'number' } } } }))
    ctx.tools.register(tool('b', { parameters: { $id: 'args', type: 'object', properties: { n: { type: 'string' } } } }))
    expect((await ctx.tools.execute('a', { n: 1 })).isError).toBe(false)
    expect((await ctx.tools.execute('b', { n: 1 })).output).toBe('invalid arguments for tool "b": /n must be string')
  })

  it('frees the name when the disposer runs, and the name can be registered again', async () => {
    const ctx = await setup()
    const dispose = ctx.tools.register(tool('read'))
    await dispose()
    expect(ctx.tools.has('read')).toBe(false)
    ctx.tools.register(tool('read', { description: 'again' }))
    expect(ctx.tools.get('read')?.description).toBe('again')
  })

  it('removes a plugin\'s tools from the assembly when that plugin is disposed', async () => {
    const ctx = await setup()
    const fiber = await plugin(ctx, 'file-tools', [tool('read'), tool('write')])
    await plugin(ctx, 'shell-tools', [tool('bash')])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['bash', 'read', 'write'])
    await fiber.dispose()
    expect(ctx.tools.list()).toEqual(['bash'])
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(['bash'])
  })

  it('get() returns a frozen copy whose execute still reaches a class-based tool', async () => {
    class Counter {
      name = 'count'
      description = 'counts calls'
      parameters = { type: 'object' }
      calls = 0
      execute() {
        return ++this.calls
      }
    }
    const ctx = await setup()
    const counter = new Counter()
    ctx.tools.register(counter)
    const definition = ctx.tools.get('count')!
    expect(Object.isFrozen(definition)).toBe(true)
    expect(Object.isFrozen(definition.parameters)).toBe(true)
    expect(await ctx.tools.execute('count', {})).toEqual({ output: '1', isError: false })
    expect(definition.execute({}, { signal: new AbortController().signal })).toBe(2)
    expect(ctx.tools.get('missing')).toBeUndefined()
  })

  it('copies the parameters, so later edits by the owner change nothing', async () => {
    const ctx = await setup()
    const parameters = { type: 'object', properties: { input: { type: 'string' } } }
    ctx.tools.register(tool('read', { parameters }))
    parameters.properties.input.type = 'number'
    const [schema] = (await ctx.systemPrompt.assemble()).tools
    expect(schema.parameters).toEqual({ type: 'object', properties: { input: { type: 'string' } } })
    expect((await ctx.tools.execute('read', { input: 'x' })).isError).toBe(false)
  })
})
