import { describe, expect, it } from 'vitest'
import { assembledNames, loadStatic, setup, sleep } from './setup.ts'

describe('tools-static', () => {
  it('registers every configured tool with the default parameters', async () => {
    const { ctx } = await setup()
    await loadStatic(ctx, { tools: [{ name: 'zeta', description: 'last' }, { name: 'alpha', description: 'first' }] })
    const assembly = await ctx.systemPrompt.assemble()
    expect(assembly.tools).toEqual([
      { name: 'alpha', description: 'first', parameters: { type: 'object', properties: {} } },
      { name: 'zeta', description: 'last', parameters: { type: 'object', properties: {} } },
    ])
  })

  it('passes the configured parameters through to the model-facing schema', async () => {
    const { ctx } = await setup()
    const parameters = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }
    await loadStatic(ctx, { tools: [{ name: 'read', description: 'reads', parameters }] })
    const [tool] = (await ctx.systemPrompt.assemble()).tools
    expect(tool.parameters).toEqual(parameters)
  })

  it('returns the configured result, or "<name> ok" and the arguments as JSON', async () => {
    const { ctx } = await setup()
    await loadStatic(ctx, {
      tools: [
        { name: 'fixed', description: 'd', result: 'the fixed answer' },
        { name: 'echo', description: 'd', parameters: { type: 'object', properties: { n: { type: 'number' } } } },
      ],
    })
    expect(await ctx.tools.execute('fixed', {})).toEqual({ output: 'the fixed answer', isError: false })
    expect(await ctx.tools.execute('echo', { n: 2 })).toEqual({ output: 'echo ok {"n":2}', isError: false })
    expect(await ctx.tools.execute('echo', {})).toEqual({ output: 'echo ok {}', isError: false })
  })

  it('registers a shouldDefer tool as deferred: known, but not shown until revealed', async () => {
    const { ctx } = await setup()
    await loadStatic(ctx, { tools: [{ name: 'shown', description: 'd' }, { name: 'later', description: 'd', shouldDefer: true }] })
    expect(ctx.tools.deferredNames()).toEqual(['later'])
    expect(await assembledNames(ctx)).toEqual(['shown'])
    ctx.tools.reveal('later')
    expect(await assembledNames(ctx)).toEqual(['later', 'shown'])
  })

  it('reveals a revealed deferred tool once it is registered: shown, and still deferred', async () => {
    const { ctx } = await setup()
    await loadStatic(ctx, { tools: [{ name: 'shown', description: 'd' }, { name: 'deferred', description: 'd', shouldDefer: true, revealed: true }] })
    expect(ctx.tools.deferredNames()).toEqual(['deferred'])
    expect(await assembledNames(ctx)).toEqual(['deferred', 'shown'])
  })

  it('makes a delayed tool part of its start: the plugin is started once the tool is registered', async () => {
    const { ctx } = await setup()
    const before = Date.now()
    const fiber = loadStatic(ctx, { tools: [{ name: 'now', description: 'd' }, { name: 'slow', description: 'd', delayMs: 60 }] })
    await sleep(10)
    expect(fiber.state).toBe(1)
    expect(ctx.tools.list()).toEqual(['now'])
    await fiber
    expect(Date.now() - before).toBeGreaterThanOrEqual(55)
    expect(ctx.tools.list()).toEqual(['now', 'slow'])
  })

  it('cancels a pending start delay on dispose, at once: nothing registers afterwards', async () => {
    const { ctx, errors } = await setup()
    const changes: string[] = []
    ctx.on('tools/change', (change) => { changes.push(`${change.action} ${change.name}`) })
    const fiber = loadStatic(ctx, { tools: [{ name: 'now', description: 'd' }, { name: 'slow', description: 'd', delayMs: 5000 }] })
    await sleep(10)
    const before = Date.now()
    await fiber.dispose()
    expect(Date.now() - before).toBeLessThan(1000)
    await sleep(30)
    expect(ctx.tools.list()).toEqual([])
    expect(changes).toEqual(['register now', 'unregister now'])
    expect(errors).toEqual([])
  })

  it('removes its delayed tools with the plugin once they were registered', async () => {
    const { ctx } = await setup()
    const fiber = await loadStatic(ctx, { tools: [{ name: 'slow', description: 'd', delayMs: 5 }] })
    await expect.poll(() => ctx.tools.list(), { timeout: 1000, interval: 5 }).toEqual(['slow'])
    await fiber.dispose()
    expect(ctx.tools.list()).toEqual([])
  })

  it('fails its start when a delayed tool is refused at registration', async () => {
    const { ctx } = await setup()
    await loadStatic(ctx, { tools: [{ name: 'taken', description: 'first' }] })
    const error = await loadStatic(ctx, { tools: [{ name: 'taken', description: 'second', delayMs: 5 }] }).then(() => undefined, (error: any) => error)
    expect(String(error)).toContain('tool "taken" is already registered')
    expect(ctx.tools.get('taken')?.description).toBe('first')
  })

  it('waits for the tools service before registering', async () => {
    const { ctx } = await setup()
    const ToolRuntime = (await import('dsh-tools')).default
    const runtime = ctx.registry.get(ToolRuntime)!
    await [...runtime.fibers][0].dispose()
    const fiber = loadStatic(ctx, { tools: [{ name: 'a', description: 'd' }] })
    expect(fiber.state).toBe(0)
    await ctx.plugin(ToolRuntime, {} as any)
    await fiber
    expect(ctx.tools.list()).toEqual(['a'])
  })
})
