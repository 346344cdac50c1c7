import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ToolChange } from 'dsh-tools'
import { batchRegistrationLabel } from '../src/plugin.ts'
import { events, loadMcp, processAlive as alive, setup, tempDir, testServer, until, type TestTool } from './setup.ts'

const tool = (name: string, extra: Partial<TestTool> = {}): TestTool => ({ name, description: `The ${name} tool.`, ...extra })

/** Labels of the plugin's live registration effects: one per listing registered at once. */
const registrations = (plugin: unknown) => (plugin as { getEffects(): { label: string }[] }).getEffects()
  .map((effect) => effect.label).filter((label) => label.startsWith('tools-mcp.register('))

/** The plugin on a fresh context with fast restarts; the caller disposes the returned fiber. */
async function start(servers: Record<string, unknown>, config: Record<string, unknown> = {}) {
  const { ctx, lines } = await setup()
  const changes: ToolChange[] = []
  ctx.on('tools/change', (change) => { changes.push(change) })
  const plugin = await loadMcp(ctx, { servers, restartDelayMs: 50, maxRestartDelayMs: 200, ...config })
  return { ctx, lines, changes, plugin }
}

describe('startup', () => {
  it('registers every page of a paginated tools/list', async () => {
    const { ctx, plugin } = await start({ paged: testServer({ tools: ['a', 'b', 'c', 'd', 'e'].map((name) => tool(name)), pageSize: 2 }) })
    expect(ctx.tools.list()).toEqual(['a', 'b', 'c', 'd', 'e'].map((name) => `mcp__paged__${name}`))
    // registered as one listing: each tool's origin names the server
    expect(ctx.tools.origin('mcp__paged__e')).toEqual({ plugin: 'tools-mcp', entry: undefined, server: 'paged' })
    await plugin.dispose()
    expect(ctx.tools.list()).toEqual([])
  })

  it('stops waiting for a slow server at its startupTimeoutMs with one warning, and adds its tools when it answers', async () => {
    const { ctx, lines, changes, plugin } = await start({
      slow: { ...testServer({ tools: [tool('s')], delayMs: 1500 }), startupTimeoutMs: 100 },
    })
    expect(ctx.tools.list()).toEqual([])
    expect(lines.filter((line) => line.startsWith('[warn]'))).toEqual([
      '[warn] MCP server "slow" has not listed its tools within startupTimeoutMs 100; starting without it, its tools will join when it answers',
    ])
    await until(() => ctx.tools.has('mcp__slow__s'), 'the slow server\'s tools')
    expect(changes).toEqual([{ action: 'register', name: 'mcp__slow__s' }])
    await plugin.dispose()
  })

  it('serves without a server that cannot start: one error line naming it and why, then retries', async () => {
    const dir = await tempDir()
    const { ctx, lines, plugin } = await start({
      good: testServer({ tools: [tool('g')] }),
      broken: testServer({ fail: 'cannot open the database' }),
      missing: { command: join(dir, 'no-such-program') },
    })
    expect(ctx.tools.list()).toEqual(['mcp__good__g'])
    await new Promise((resolve) => setTimeout(resolve, 400)) // several retries at 50…200 ms
    const errors = lines.filter((line) => line.startsWith('[error]'))
    expect(errors).toHaveLength(2)
    expect(errors.find((line) => line.includes('"broken"'))).toMatch(/^\[error\] MCP server "broken" failed to start: .*\(stderr: cannot open the database\); retrying in 50 ms, backing off up to 200 ms$/)
    expect(errors.find((line) => line.includes('"missing"'))).toMatch(/^\[error\] MCP server "missing" failed to start: .*ENOENT.*; retrying in 50 ms/)
    await plugin.dispose()
  })

  it('ends the server processes when the plugin is disposed during startup', async () => {
    const file = join(await tempDir(), 'events.jsonl')
    const { ctx } = await setup()
    const plugin = loadMcp(ctx, { servers: { late: { ...testServer({ tools: [tool('x')], delayMs: 500, events: file }), startupTimeoutMs: 60_000 } } })
    await new Promise((resolve) => setTimeout(resolve, 100))
    // cordis lets the running apply finish (the startup waits for the first list), then disposes
    await plugin.dispose()
    expect(ctx.tools.list()).toEqual([])
    const pids = (await events(file)).map((event) => event.pid as number)
    expect(pids).toHaveLength(1)
    await until(() => pids.every((pid) => !alive(pid)), 'the server to exit')
  })

  it('starts no process for a disabled server', async () => {
    const file = join(await tempDir(), 'events.jsonl')
    const { ctx, plugin } = await start({ off: { ...testServer({ tools: [tool('x')], events: file }), disabled: true } })
    expect(ctx.tools.list()).toEqual([])
    expect(await events(file)).toEqual([])
    await plugin.dispose()
  })
})

describe('a running server', () => {
  it('re-lists on tools/list_changed: registers, unregisters and replaces', async () => {
    const file = join(await tempDir(), 'events.jsonl')
    const phases = [
      [tool('keep'), tool('gone'), tool('edit')],
      [tool('keep'), tool('new'), tool('edit', { description: 'Edited.' })],
    ]
    const { ctx, changes, plugin } = await start({ live: testServer({ phases, events: file }) })
    const first = batchRegistrationLabel(['mcp__live__keep', 'mcp__live__gone', 'mcp__live__edit'], 'live')
    expect(registrations(plugin)).toEqual([first])
    changes.length = 0
    const [{ pid }] = await events(file)
    process.kill(pid, 'SIGUSR1')
    await until(() => ctx.tools.has('mcp__live__new') && ctx.tools.get('mcp__live__edit')?.description === 'Edited.', 'the second list')
    // one registration call for what the re-listing added; the first stays while its "keep" does
    expect(registrations(plugin)).toEqual([first, batchRegistrationLabel(['mcp__live__new', 'mcp__live__edit'], 'live')])
    expect(ctx.tools.list()).toEqual(['mcp__live__edit', 'mcp__live__keep', 'mcp__live__new'])
    expect(changes).toEqual(expect.arrayContaining([
      { action: 'unregister', name: 'mcp__live__gone' },
      { action: 'unregister', name: 'mcp__live__edit' },
      { action: 'register', name: 'mcp__live__edit' },
      { action: 'register', name: 'mcp__live__new' },
    ]))
    expect(changes).toHaveLength(4)
    await plugin.dispose()
  })

  it('loses its tools when it crashes and gets them back after the restart', async () => {
    const file = join(await tempDir(), 'events.jsonl')
    const { ctx, lines, changes, plugin } = await start({ fragile: testServer({ tools: [tool('crash', { exit: true }), tool('ok')], events: file }) })
    changes.length = 0
    const result = await ctx.tools.execute('mcp__fragile__crash', {})
    expect(result.isError).toBe(true)
    expect(result.output).toMatch(/^tool "mcp__fragile__crash" failed: MCP server "fragile" failed on tool "crash": .*Connection closed/)
    await until(() => changes.length === 4, 'removal and re-addition')
    // the first listing's last tool gone, its registration effect ended: only the new listing's is left
    await until(() => registrations(plugin).length === 1, 'one registration effect')
    expect(registrations(plugin)).toEqual([batchRegistrationLabel(['mcp__fragile__crash', 'mcp__fragile__ok'], 'fragile')])
    expect(changes.slice(0, 2).map((change) => change.action)).toEqual(['unregister', 'unregister'])
    expect(changes.slice(2).map((change) => change.action)).toEqual(['register', 'register'])
    expect(lines.filter((line) => line.startsWith('[warn]'))).toEqual(['[warn] MCP server "fragile" disconnected; its tools are removed; restarting in 50 ms'])
    const starts = (await events(file)).filter((event) => event.event === 'start')
    expect(starts).toHaveLength(2)
    expect(starts[1].pid).not.toBe(starts[0].pid)
    expect(await ctx.tools.execute('mcp__fragile__ok', {})).toEqual({ output: 'ok called with {}', isError: false })
    await plugin.dispose()
  })

  it('ends a call past callTimeoutMs with an error naming the server and the tool, and cancels it on the server', async () => {
    const file = join(await tempDir(), 'events.jsonl')
    const { ctx, plugin } = await start({ sluggish: { ...testServer({ tools: [tool('wait', { delayMs: 5000 })], events: file }), callTimeoutMs: 200 } })
    expect(await ctx.tools.execute('mcp__sluggish__wait', {})).toEqual({
      output: 'tool "mcp__sluggish__wait" failed: MCP server "sluggish" did not answer tool "wait" within 200 ms',
      isError: true,
    })
    await until(async () => (await events(file)).some((event) => event.event === 'cancelled'), 'the cancellation on the server')
    await plugin.dispose()
  })

  it('sends MCP cancellation when the caller aborts', async () => {
    const file = join(await tempDir(), 'events.jsonl')
    const { ctx, plugin } = await start({ sluggish: testServer({ tools: [tool('wait', { delayMs: 5000 })], events: file }) })
    const controller = new AbortController()
    const running = ctx.tools.execute('mcp__sluggish__wait', {}, { signal: controller.signal })
    await until(async () => (await events(file)).some((event) => event.event === 'call'), 'the call on the server')
    controller.abort()
    expect(await running).toEqual({ output: 'tool "mcp__sluggish__wait" was cancelled', isError: true })
    await until(async () => (await events(file)).some((event) => event.event === 'cancelled'), 'the cancellation on the server')
    await plugin.dispose()
  })
})

describe('name collisions', () => {
  it('leave out both tools of one server that map to one name, with one error naming both', async () => {
    const { ctx, lines, plugin } = await start({ clash: testServer({ tools: [tool('a.b'), tool('a_b'), tool('c')] }) })
    expect(ctx.tools.list()).toEqual(['mcp__clash__c'])
    expect(lines.filter((line) => line.startsWith('[error]'))).toEqual([
      '[error] MCP server "clash": tools "a.b" and "a_b" both map to "mcp__clash__a_b"; neither is registered',
    ])
    await plugin.dispose()
  })

  it('refuse a tool whose name another plugin already registered, naming it', async () => {
    const { ctx, lines } = await setup()
    ctx.tools.register({ name: 'mcp__x__t', description: 'd', parameters: { type: 'object' }, execute: () => '' })
    const plugin = await loadMcp(ctx, { servers: { x: testServer({ tools: [tool('t'), tool('u')] }) } })
    expect(ctx.tools.list()).toEqual(['mcp__x__t', 'mcp__x__u'])
    expect(ctx.tools.get('mcp__x__t')?.description).toBe('d')
    // registered one by one after the refusal: the origin still names the server, and the other tool keeps its own
    expect(ctx.tools.origin('mcp__x__u')).toEqual({ plugin: 'tools-mcp', entry: undefined, server: 'x' })
    expect(ctx.tools.origin('mcp__x__t')).not.toHaveProperty('server')
    expect(lines.filter((line) => line.startsWith('[error]'))).toEqual([
      '[error] MCP server "x": tool "t" cannot be registered: tool "mcp__x__t" is already registered',
    ])
    await plugin.dispose()
  })
})
