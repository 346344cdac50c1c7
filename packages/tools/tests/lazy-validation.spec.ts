import { describe, expect, it } from 'vitest'
import { ValidatorPool } from '../src/arguments.ts'
import { setup, tool } from './setup.ts'

describe('argument validators', () => {
  it('registering compiles nothing; the first call compiles, and identical schemas share one validator', async () => {
    const ctx = await setup()
    const pool = (ctx.tools as any).validators as ValidatorPool
    const parameters = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }
    for (const name of ['a', 'b', 'c']) ctx.tools.register(tool(name, { parameters: structuredClone(parameters) }))
    ctx.tools.register(tool('d', { parameters: { type: 'object', properties: { s: { type: 'string' } } } }))
    expect(pool.size).toBe(0)
    expect((await ctx.tools.execute('a', { n: 'x' })).output).toBe('invalid arguments for tool "a": /n must be number')
    expect((await ctx.tools.execute('b', {})).output).toBe('invalid arguments for tool "b": arguments must have required property \'n\'')
    expect((await ctx.tools.execute('c', { n: 1 })).isError).toBe(false)
    expect(pool.size).toBe(1)
    await ctx.tools.execute('d', { s: 'x' })
    expect(pool.size).toBe(2)
  })

  it('a re-listed tool with the same schema reuses the validator compiled before', async () => {
    const ctx = await setup()
    const pool = (ctx.tools as any).validators as ValidatorPool
    const dispose = ctx.tools.register(tool('a'))
    await ctx.tools.execute('a', { input: 'x' })
    await dispose()
    ctx.tools.register(tool('a'))
    expect((await ctx.tools.execute('a', { input: 1 })).output).toBe('invalid arguments for tool "a": /input must be string')
    expect(pool.size).toBe(1)
  })

  it.each([
    [{ type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } } }, { name: 'a', child: { name: 'b' } }, { child: { name: 2 } }, '/child/name must be string'],
    [{ $id: 'tree', type: 'object', properties: { name: { type: 'string' }, child: { $ref: '#' } } }, { child: { name: 'b' } }, { child: { name: 2 } }, '/child/name must be string'],
    [{ type: 'object', properties: { a: { $ref: '#/$defs/n' } }, $defs: { n: { type: 'object', properties: { next: { $ref: '#/$defs/n' }, v: { type: 'number' } } } } }, { a: { next: { v: 1 } } }, { a: { next: { v: 'x' } } }, '/a/next/v must be number'],
  ])('a recursive schema (%o) validates nested arguments', async (parameters, valid, invalid, problem) => {
    const ctx = await setup()
    ctx.tools.register(tool('t', { parameters, execute: () => 'ran' }))
    expect(await ctx.tools.execute('t', valid)).toEqual({ output: 'ran', isError: false })
    expect(await ctx.tools.execute('t', invalid)).toEqual({ output: `invalid arguments for tool "t": ${problem}`, isError: true })
    // what the model is shown keeps the author's schema: the compile-only $id does not leak
    expect(ctx.tools.get('t')?.parameters).toEqual(parameters)
  })

  it.each([
    [{ type: 'object', properties: { a: { type: 'nope' } } }, /schema is invalid: data\/properties\/a\/type must be equal to one of the allowed values/],
    [{ type: 'object', $schema: 'https://json-schema.org/draft/2020-12/schema' }, /no schema with key or ref "https:\/\/json-schema.org\/draft\/2020-12\/schema"/],
    [{ type: 'object', requried: ['a'] }, /strict mode: unknown keyword: "requried"/],
    [{ type: 'object', properties: { a: { $ref: '#/definitions/missing' } } }, /can't resolve reference #\/definitions\/missing/],
  ])('a schema that is not a valid JSON Schema (%o) registers, and every call fails naming the problem', async (parameters, problem) => {
    const ctx = await setup()
    ctx.tools.register(tool('t', { parameters }))
    for (let call = 0; call < 2; call++) {
      const result = await ctx.tools.execute('t', { a: 1 })
      expect(result.isError).toBe(true)
      expect(result.output).toMatch(/^tool "t" cannot be called: its parameters are not a valid JSON Schema: /)
      expect(result.output).toMatch(problem)
    }
  })
})

describe('tools.registerMany()', () => {
  it('adds every tool in one call, emits one change per tool, and one disposer removes them all', async () => {
    const { recordChanges } = await import('./setup.ts')
    const ctx = await setup()
    const changes = recordChanges(ctx)
    const dispose = ctx.tools.registerMany([tool('b'), tool('a'), tool('c')])
    expect(ctx.tools.list()).toEqual(['a', 'b', 'c'])
    expect(changes.map((change) => `${change.action} ${change.name}`)).toEqual(['register b', 'register a', 'register c'])
    expect((await ctx.tools.execute('a', { input: 'x' })).output).toBe('x')
    await dispose()
    expect(ctx.tools.list()).toEqual([])
  })

  it.each([
    [[tool('a'), tool('a')], 'DUPLICATE_TOOL', 'tool "a" is already registered'],
    [[tool('ok'), tool('bad name')], 'INVALID_TOOL_NAME', 'tool name "bad name" must match'],
    ['a', 'INVALID_TOOL', 'tools.registerMany() needs a list of tool definitions, got "a"'],
  ])('adds nothing when one definition is refused (%#)', async (definitions, code, message) => {
    const ctx = await setup()
    let error: any
    try { ctx.tools.registerMany(definitions as any) } catch (e) { error = e }
    expect(error?.code).toBe(code)
    expect(error?.message).toContain(message)
    expect(ctx.tools.list()).toEqual([])
  })

  it('each[i] removes the i-th tool alone; the batch disposer then removes the rest', async () => {
    const ctx = await setup()
    const dispose = ctx.tools.registerMany([tool('b'), tool('a'), tool('c')])
    expect(dispose.each).toHaveLength(3)
    await dispose.each[1]!()
    expect(ctx.tools.list()).toEqual(['b', 'c'])
    ctx.tools.register(tool('a'))
    await dispose.each[1]!()
    expect(ctx.tools.list()).toEqual(['a', 'b', 'c'])
    await dispose()
    expect(ctx.tools.list()).toEqual(['a'])
  })

  it('tools of a disposed plugin go away with it', async () => {
    const ctx = await setup()
    const fiber = await ctx.plugin({ name: 'bridge', inject: ['tools'], apply: (ctx) => { ctx.tools.registerMany([tool('x'), tool('y')]) } })
    expect(ctx.tools.list()).toEqual(['x', 'y'])
    await fiber.dispose()
    expect(ctx.tools.list()).toEqual([])
  })
})

describe('loading the validator library', () => {
  it('waits for the first call: mounting the runtime and registering tools load no ajv module', async () => {
    const { execFile } = await import('node:child_process')
    const { fileURLToPath } = await import('node:url')
    const script = `
      import { createRequire } from 'node:module'
      import { Context } from 'cordis'
      import SystemPrompt from 'dsh-system-prompt'
      import ToolRuntime from 'dsh-tools'
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/ajv/'))
      const ctx = new Context()
      await ctx.plugin(SystemPrompt, {})
      await ctx.plugin(ToolRuntime, {})
      ctx.tools.register({ name: 'echo', description: 'Echo.', parameters: { type: 'object', properties: { text: { type: 'string' } } }, execute: ({ text }) => text })
      await ctx.systemPrompt.assemble()
      const before = loaded()
      const bad = await ctx.tools.execute('echo', { text: 1 })
      console.log(JSON.stringify({ before, after: loaded(), bad: bad.isError }))
    `
    const out = await new Promise<string>((resolve, reject) => execFile(process.execPath,
      ['--conditions=source', '--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: fileURLToPath(new URL('..', import.meta.url)) }, (error, stdout) => error ? reject(error) : resolve(stdout)))
    expect(JSON.parse(out)).toEqual({ before: false, after: true, bad: true })
  })
})
