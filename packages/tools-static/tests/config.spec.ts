import { describe, expect, it } from 'vitest'
import { ToolsStaticError } from '../src/errors.ts'
import { loadStatic, setup } from './setup.ts'

const tool = { name: 'a', description: 'd' }

describe('tools-static config', () => {
  it('treats an omitted tools list as no tools', async () => {
    const { ctx } = await setup()
    await loadStatic(ctx, {})
    expect(ctx.tools.list()).toEqual([])
  })

  const invalid: [string, unknown, string][] = [
    ['tools that is a string', { tools: 'x' }, '$.tools expected array but got x'],
    ['a tool without name', { tools: [{ description: 'd' }] }, '$.tools[0].name missing required value'],
    ['a tool without description', { tools: [{ name: 'a' }] }, '$.tools[0].description missing required value'],
    ['a negative delayMs', { tools: [tool, { ...tool, name: 'b', delayMs: -1 }] }, '$.tools[1].delayMs expected number >= 0 but got -1'],
    ['a fractional delayMs', { tools: [{ ...tool, delayMs: 1.5 }] }, '$.tools[0].delayMs expected number multiple of 1 but got 1.5'],
    ['parameters that are a string', { tools: [{ ...tool, parameters: 'p' }] }, '$.tools[0].parameters expected object but got p'],
    ['a result that is not a string', { tools: [{ ...tool, result: 5 }] }, '$.tools[0].result expected string but got 5'],
    ['a negative afterReadyMs', { tools: [{ ...tool, afterReadyMs: -5 }] }, '$.tools[0].afterReadyMs expected number >= 0 but got -5'],
    ['an afterReadyMs that is a string', { tools: [{ ...tool, afterReadyMs: '5s' }] }, '$.tools[0].afterReadyMs expected number but got 5s'],
    ['a shouldDefer that is not a boolean', { tools: [{ ...tool, shouldDefer: 'yes' }] }, '$.tools[0].shouldDefer expected boolean but got yes'],
    ['a revealed that is not a boolean', { tools: [{ ...tool, shouldDefer: true, revealed: 1 }] }, '$.tools[0].revealed expected boolean but got 1'],
  ]
  it.each(invalid)('fails the plugin load for %s', async (_, config, message) => {
    const { ctx } = await setup()
    const error = await loadStatic(ctx, config).then(() => undefined, (error: any) => error)
    expect(error?.name).toBe('ValidationError')
    expect(error.message).toContain(message)
    expect(ctx.tools.list()).toEqual([])
  })

  const refused: [string, unknown, string, string][] = [
    ['a name providers reject', { tools: [{ ...tool, name: 'has space' }] }, 'INVALID_TOOL_NAME', 'tools-static: tools[0]: name "has space" must match'],
    ['a name listed twice', { tools: [tool, { ...tool, delayMs: 5 }] }, 'DUPLICATE_TOOL', 'tools-static: tools[1]: tool "a" is listed twice'],
    ['both delayMs and afterReadyMs', { tools: [{ ...tool, delayMs: 10, afterReadyMs: 20 }] }, 'CONFLICTING_DELAYS',
      'tools-static: tools[0]: tool "a" sets both delayMs (10, during startup) and afterReadyMs (20, after ready); keep one'],
    ['revealed without shouldDefer', { tools: [{ ...tool, revealed: true }] }, 'REVEAL_WITHOUT_DEFER',
      'tools-static: tools[0]: tool "a" sets revealed without shouldDefer: true; only a deferred tool is revealed'],
    ['parameters without type object', { tools: [{ ...tool, parameters: { type: 'string' } }] }, 'INVALID_PARAMETERS', 'got type "string"'],
  ]
  it.each(refused)('fails the plugin load for %s, before any delay', async (_, config, code, message) => {
    const { ctx } = await setup()
    const error = await loadStatic(ctx, config).then(() => undefined, (error: any) => error)
    expect(error).toBeInstanceOf(ToolsStaticError)
    expect(error.code).toBe(code)
    expect(error.message).toContain(message)
    expect(ctx.tools.list()).toEqual([])
  })
})
