import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import { describe, expect, it } from 'vitest'
import ToolRuntime from '../src/index.ts'
import { ToolsError } from '../src/errors.ts'
import { setup } from './setup.ts'

describe('ToolRuntime config', () => {
  it('defaults timeoutMs to 30 seconds', async () => {
    const ctx = await setup()
    expect(ctx.tools.config.timeoutMs).toBe(30_000)
  })

  it('accepts a positive integer timeoutMs', async () => {
    const ctx = await setup({ timeoutMs: 1 })
    expect(ctx.tools.config.timeoutMs).toBe(1)
  })

  it.each([
    [0, /timeoutMs expected number >= 1 but got 0/],
    [-5, /timeoutMs expected number >= 1 but got -5/],
    [1.5, /timeoutMs expected number multiple of 1 but got 1.5/],
    [Number.NaN, /timeoutMs expected number multiple of 1 but got NaN/],
    [Infinity, /timeoutMs expected number <= 2147483647 but got Infinity/],
    [2 ** 31, /timeoutMs expected number <= 2147483647 but got 2147483648/],
    ['1000', /timeoutMs expected number but got 1000/],
  ])('fails the plugin load for timeoutMs %j', async (timeoutMs, message) => {
    await expect(setup({ timeoutMs: timeoutMs as number })).rejects.toThrow(message)
  })

  it('checks timeoutMs even when constructed without the schema', () => {
    const ctx = new Context()
    const build = () => new ToolRuntime(ctx, { timeoutMs: -1 })
    expect(build).toThrow(ToolsError)
    expect(build).toThrow('tools config timeoutMs must be an integer number of milliseconds from 1 to 2147483647, got -1')
    expect(ctx.get('tools')).toBeUndefined()
  })

  it('waits for systemPrompt before it becomes ctx.tools', async () => {
    const ctx = new Context()
    await ctx.plugin(ToolRuntime, {} as any)
    expect(ctx.get('tools')).toBeUndefined()
    await ctx.plugin(SystemPrompt, {} as any)
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(ctx.get('tools')).toBeInstanceOf(ToolRuntime)
  })
})
