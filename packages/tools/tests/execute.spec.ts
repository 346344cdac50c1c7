import { describe, expect, it } from 'vitest'
import type { ToolExecuteContext } from '../src/types.ts'
import { ToolsError } from '../src/errors.ts'
import { setup, tool } from './setup.ts'

const strictParameters = {
  type: 'object',
  properties: {
    path: { type: 'string' },
    mode: { enum: ['read', 'write'] },
    limit: { type: 'integer', minimum: 1 },
  },
  required: ['path'],
  additionalProperties: false,
}

/** A tool that never settles by itself and reports how its signal ended. */
function waiting(name: string, extra = {}) {
  const seen: { signal?: AbortSignal } = {}
  const definition = tool(name, {
    ...extra,
    execute: (_args: unknown, { signal }: ToolExecuteContext) => {
      seen.signal = signal
      return new Promise(() => {})
    },
  })
  return { definition, seen }
}

describe('tools.execute()', () => {
  it('returns a string result as is', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('echo'))
    expect(await ctx.tools.execute('echo', { input: 'hello\n' })).toEqual({ output: 'hello\n', isError: false })
  })

  it.each([
    [42, '42'],
    [{ files: ['a', 'b'] }, '{"files":["a","b"]}'],
    [null, 'null'],
    [false, 'false'],
    [[1, 'x'], '[1,"x"]'],
    [undefined, ''],
    ['', ''],
  ])('turns the return value %j into %j', async (value, output) => {
    const ctx = await setup()
    ctx.tools.register(tool('value', { execute: async () => value }))
    expect(await ctx.tools.execute('value', {})).toEqual({ output, isError: false })
  })

  it.each([
    [() => 10n, /tool "odd" returned a value that cannot be turned into JSON: .*BigInt/],
    [() => { const loop: any = {}; loop.self = loop; return loop }, /tool "odd" returned a value that cannot be turned into JSON: .*circular/],
    [() => () => 1, /tool "odd" returned a function, which has no JSON form/],
  ])('reports a return value without a JSON form as an error (%#)', async (execute, message) => {
    const ctx = await setup()
    ctx.tools.register(tool('odd', { execute }))
    const result = await ctx.tools.execute('odd', {})
    expect(result.isError).toBe(true)
    expect(result.output).toMatch(message)
  })

  it('rejects invalid arguments without running the tool, listing every ajv error', async () => {
    const ctx = await setup()
    let runs = 0
    ctx.tools.register(tool('read', { parameters: strictParameters, execute: () => { runs++ } }))
    expect(await ctx.tools.execute('read', { path: 7 })).toEqual({ output: 'invalid arguments for tool "read": /path must be string', isError: true })
    const many = await ctx.tools.execute('read', { mode: 'delete', limit: 0.5, extra: true })
    expect(many).toEqual({
      output: 'invalid arguments for tool "read": arguments must have required property \'path\'; '
        + 'arguments must NOT have additional properties ("extra"); '
        + '/mode must be equal to one of the allowed values: "read", "write"; /limit must be integer; /limit must be >= 1',
      isError: true,
    })
    expect(await ctx.tools.execute('read', undefined)).toEqual({ output: 'invalid arguments for tool "read": arguments must be object', isError: true })
    expect(runs).toBe(0)
    expect(await ctx.tools.execute('read', { path: 'a', mode: 'read', limit: 3 })).toEqual({ output: '', isError: false })
    expect(runs).toBe(1)
  })

  it('caps a very long list of argument errors', async () => {
    const ctx = await setup()
    const properties = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`p${index}`, { type: 'string' }]))
    ctx.tools.register(tool('wide', { parameters: { type: 'object', properties } }))
    const args = Object.fromEntries(Array.from({ length: 30 }, (_, index) => [`p${index}`, index]))
    const { output } = await ctx.tools.execute('wide', args)
    expect(output.split('; ')).toHaveLength(21)
    expect(output).toMatch(/; … and 10 more$/)
  })

  it('answers an unknown tool with an error that lists the available tools', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('write'))
    ctx.tools.register(tool('read'))
    expect(await ctx.tools.execute('reed', {})).toEqual({ output: 'unknown tool "reed"; available tools: read, write', isError: true })
    expect(await ctx.tools.execute(undefined as any, {})).toEqual({ output: 'unknown tool undefined; available tools: read, write', isError: true })
  })

  it.each([
    ['a synchronous throw', () => { throw new Error('disk full') }, 'tool "t" failed: disk full'],
    ['a rejection', async () => { throw new TypeError('bad path') }, 'tool "t" failed: bad path'],
    ['a thrown string', () => { throw 'nope' }, 'tool "t" failed: nope'],
  ])('turns %s into an error result', async (_, execute, output) => {
    const ctx = await setup()
    ctx.tools.register(tool('t', { execute }))
    expect(await ctx.tools.execute('t', {})).toEqual({ output, isError: true })
  })

  it('times out a slow tool after its own timeoutMs and aborts its signal', async () => {
    const ctx = await setup()
    const { definition, seen } = waiting('slow', { timeoutMs: 30 })
    ctx.tools.register(definition)
    const started = Date.now()
    expect(await ctx.tools.execute('slow', {})).toEqual({ output: 'tool "slow" timed out after 30 ms', isError: true })
    expect(Date.now() - started).toBeGreaterThanOrEqual(25)
    expect(seen.signal?.aborted).toBe(true)
    expect(seen.signal?.reason).toBeInstanceOf(ToolsError)
    expect(seen.signal?.reason.code).toBe('TIMEOUT')
  })

  it('uses the configured timeoutMs when the tool sets none', async () => {
    const ctx = await setup({ timeoutMs: 20 })
    const { definition, seen } = waiting('slow')
    ctx.tools.register(definition)
    expect(await ctx.tools.execute('slow', {})).toEqual({ output: 'tool "slow" timed out after 20 ms', isError: true })
    expect(seen.signal?.aborted).toBe(true)
  })

  it('drops a result that arrives after the timeout', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('late', { timeoutMs: 10, execute: () => new Promise((resolve) => setTimeout(() => resolve('too late'), 60)) }))
    expect(await ctx.tools.execute('late', {})).toEqual({ output: 'tool "late" timed out after 10 ms', isError: true })
    await new Promise((resolve) => setTimeout(resolve, 80))
  })

  it('does not abort the signal of a tool that finished in time', async () => {
    const ctx = await setup()
    let signal: AbortSignal | undefined
    ctx.tools.register(tool('quick', { timeoutMs: 20, execute: (_: unknown, context: ToolExecuteContext) => { signal = context.signal; return 'done' } }))
    expect(await ctx.tools.execute('quick', {})).toEqual({ output: 'done', isError: false })
    await new Promise((resolve) => setTimeout(resolve, 40))
    expect(signal?.aborted).toBe(false)
  })

  it('cancels a running tool when the outer signal aborts, passing the reason on', async () => {
    const ctx = await setup()
    const { definition, seen } = waiting('slow')
    ctx.tools.register(definition)
    const outer = new AbortController()
    const pending = ctx.tools.execute('slow', {}, { signal: outer.signal })
    await new Promise((resolve) => setTimeout(resolve, 5))
    outer.abort('user pressed ctrl-c')
    expect(await pending).toEqual({ output: 'tool "slow" was cancelled', isError: true })
    expect(seen.signal?.aborted).toBe(true)
    expect(seen.signal?.reason).toBe('user pressed ctrl-c')
  })

  it('does not start a tool when the outer signal is already aborted', async () => {
    const ctx = await setup()
    let runs = 0
    ctx.tools.register(tool('t', { execute: () => { runs++ } }))
    expect(await ctx.tools.execute('t', {}, { signal: AbortSignal.abort() })).toEqual({ output: 'tool "t" was cancelled', isError: true })
    expect(runs).toBe(0)
  })

  it('never throws, even for a signal that is not an AbortSignal', async () => {
    const ctx = await setup()
    ctx.tools.register(tool('t'))
    const result = await ctx.tools.execute('t', {}, { signal: {} as AbortSignal })
    expect(result.isError).toBe(true)
    expect(result.output).toMatch(/^tool "t" failed: /)
  })
})
