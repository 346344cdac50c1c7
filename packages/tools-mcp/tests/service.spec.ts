import { join } from 'node:path'
import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import ToolRuntime from 'dsh-tools'
import { describe, expect, it } from 'vitest'
import type { ToolChange } from 'dsh-tools'
import { McpService, ToolsMcpError } from '../src/index.ts'
import type { ServerEntry } from '../src/config.ts'
import { batchRegistrationLabel } from '../src/plugin.ts'
import { events, loadMcp, processAlive, publishedBin, setup, tempDir, testServer, until, type TestTool } from './setup.ts'

const tool = (name: string, extra: Partial<TestTool> = {}): TestTool => ({ name, description: `The ${name} tool.`, ...extra })
const withEnv = (server: ReturnType<typeof testServer>, env: Record<string, string>) => ({ ...server, env: { ...server.env, ...env } })
const FAST = { restartDelayMs: 50, maxRestartDelayMs: 200 }

/** A plugin standing for a front door: the context `ctx.mcp.connect()` is called from. */
async function door(ctx: Context) {
  let doorCtx!: Context
  const fiber = await ctx.plugin({ name: 'door', inject: ['mcp', 'tools'], apply: (inner: Context) => { doorCtx = inner } })
  return { ctx: doorCtx, fiber }
}

/** The door plugin's live registration effects: one per listing registered at once. */
const registrations = (fiber: unknown) => (fiber as { getEffects(): { label: string }[] }).getEffects()
  .map((effect) => effect.label).filter((label) => label.startsWith('tools-mcp.register('))

/** As setup(), holding the `ctx.mcp` fiber, so the test can close it as closing the app does. */
async function setupWithService() {
  const ctx = new Context()
  const lines: string[] = []
  ctx.logger.exporter({ levels: { default: 3 }, export: (message) => lines.push(`[${message.type}] ${message.args.map(String).join(' ')}`) })
  await ctx.plugin(SystemPrompt, {} as never)
  await ctx.plugin(ToolRuntime, {} as never)
  const mcp = await ctx.plugin(McpService)
  return { ctx, lines, mcp }
}

const warnings = (lines: string[]) => lines.filter((line) => /^\[(warn|error)\]/.test(line))

describe('ctx.mcp.servers()', () => {
  it("lists the app file's servers with their state, secrets redacted unless asked for", async () => {
    const { ctx } = await setup()
    const plugin = await loadMcp(ctx, {
      ...FAST,
      servers: {
        notes: withEnv(testServer({ tools: [tool('find')] }), { API_TOKEN: 's3cret' }),
        memory: { command: process.execPath, args: [publishedBin('@modelcontextprotocol/server-memory')] },
        broken: testServer({ fail: 'cannot open the database' }),
        web: { url: 'http://user:pw@127.0.0.1:1/mcp', headers: { Authorization: 'Bearer t0ken' }, startupTimeoutMs: 200 },
        off: { ...testServer({ tools: [tool('x')] }), disabled: true },
      },
    })
    const listed = ctx.mcp.servers()
    expect(listed.map(({ name, agentId, state }) => ({ name, agentId, state }))).toEqual([
      { name: 'notes', agentId: undefined, state: 'connected' },
      { name: 'memory', agentId: undefined, state: 'connected' },
      { name: 'broken', agentId: undefined, state: 'failed' },
      { name: 'web', agentId: undefined, state: 'failed' },
    ])
    expect(listed[2]!.message).toMatch(/^MCP server "broken" failed to start: cannot open the database; retrying$/)
    const notes = listed[0]!.spec.transport
    expect(notes.kind === 'stdio' && notes.env).toEqual(expect.objectContaining({ API_TOKEN: '<redacted>', MCP_TEST_PHASES: '<redacted>' }))
    const web = listed[3]!.spec.transport
    expect(web.kind === 'http' && [web.url.href, web.headers]).toEqual(['http://%3Credacted%3E:%3Credacted%3E@127.0.0.1:1/mcp', { Authorization: '<redacted>' }])
    const secret = ctx.mcp.servers({ secrets: true })
    expect(secret[0]!.spec.transport).toMatchObject({ env: { API_TOKEN: 's3cret' } })
    expect(secret[3]!.spec.transport).toMatchObject({ headers: { Authorization: 'Bearer t0ken' } })
    await plugin.dispose()
    expect(ctx.mcp.servers()).toEqual([])
  })
})

describe('ctx.mcp.connect(agentId, servers)', () => {
  it("registers the tools for that agent alone, in one batch, reports its state, and disposes cleanly", async () => {
    const { ctx, lines } = await setup()
    const changes: ToolChange[] = []
    ctx.on('tools/change', (change) => { changes.push(change) })
    const file = join(await tempDir(), 'events.jsonl')
    const { ctx: doorCtx, fiber } = await door(ctx)
    const attachment = doorCtx.mcp.connect('a', { notes: testServer({ tools: [tool('find'), tool('open')], events: file }) }, FAST)
    expect(attachment.servers).toEqual(['notes'])
    expect(ctx.mcp.servers().map(({ name, agentId, state }) => ({ name, agentId, state }))).toEqual([{ name: 'notes', agentId: 'a', state: 'starting' }])
    await attachment.started
    expect(ctx.mcp.servers({ agentId: 'a' }).map((server) => server.state)).toEqual(['connected'])
    expect(ctx.mcp.servers({ agentId: null })).toEqual([])
    expect(ctx.tools.list({ agentId: 'a' })).toEqual(['mcp__notes__find', 'mcp__notes__open'])
    expect(ctx.tools.list({ agentId: 'b' })).toEqual([])
    expect(ctx.tools.list()).toEqual([])
    expect(ctx.tools.origin('mcp__notes__find', { agentId: 'a' })).toEqual({ plugin: 'door', entry: undefined, server: 'notes' })
    expect(registrations(fiber)).toEqual([batchRegistrationLabel(['mcp__notes__find', 'mcp__notes__open'], 'notes')])
    expect((await ctx.tools.execute('mcp__notes__find', {}, { agentId: 'a' })).output).toBe('find called with {}')
    const [{ pid }] = (await events(file)).filter((event) => event.event === 'start')
    await attachment.dispose()
    expect(ctx.tools.list({ agentId: 'a' })).toEqual([])
    expect(ctx.mcp.servers()).toEqual([])
    expect(registrations(fiber)).toEqual([])
    expect(changes.map((change) => `${change.action} ${change.name} ${change.agentId}`)).toEqual([
      'register mcp__notes__find a', 'register mcp__notes__open a', 'unregister mcp__notes__find a', 'unregister mcp__notes__open a',
    ])
    await until(() => !processAlive(pid), 'the server to exit')
    await attachment.dispose() // again: nothing left to do
    expect(warnings(lines)).toEqual([])
    await fiber.dispose()
  })

  it('refuses a bad entry with one INVALID_CONFIG error naming it in details.server, and starts nothing', async () => {
    const { ctx } = await setup()
    const file = join(await tempDir(), 'events.jsonl')
    const fine = testServer({ tools: [tool('x')], events: file })
    const cases: [Record<string, unknown>, string, string][] = [
      [{ fine, typo: { comand: 'node' } }, 'typo', 'server "typo": unknown key "comand"; valid keys: command, args, env, cwd, url, headers, startupTimeoutMs, callTimeoutMs, disabled'],
      [{ fine, slow: { command: 'node', callTimeoutMs: 0 } }, 'slow', 'server "slow": $.callTimeoutMs expected number >= 1 but got 0'],
      [{ fine, 'a__b': { command: 'node' } }, 'a__b', 'server "a__b": the name becomes "a__b" in tool names; use letters, digits, "-" and single "_" inside (no "__", no "_" at either end)'],
      [{ fine, web: { url: 'ws://127.0.0.1:1/mcp' } }, 'web', 'server "web": url "ws://127.0.0.1:1/mcp" must use http: or https:, not ws:'],
    ]
    for (const [servers, server, message] of cases) {
      let error: unknown
      try { ctx.mcp.connect('a', servers as Record<string, ServerEntry>) } catch (thrown) { error = thrown }
      expect(error).toBeInstanceOf(ToolsMcpError)
      expect(error).toMatchObject({ code: 'INVALID_CONFIG', message, details: { server, reason: message.slice(`server "${server}": `.length) } })
      expect(() => ctx.mcp.check(servers as Record<string, ServerEntry>)).toThrow(message)
    }
    expect(() => ctx.mcp.connect('', { fine })).toThrow('mcp.connect() takes agentId as a non-empty string, or null for every agent; got ""')
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await events(file)).toEqual([])
    expect(ctx.mcp.servers()).toEqual([])
  })

  it('closes a connection whose server is still listing when its caller goes, and registers nothing when the listing lands', async () => {
    const { ctx, lines } = await setup()
    const file = join(await tempDir(), 'events.jsonl')
    const { ctx: doorCtx, fiber } = await door(ctx)
    const attachment = doorCtx.mcp.connect('a', { late: { ...testServer({ tools: [tool('x')], delayMs: 800, events: file }), startupTimeoutMs: 60_000 } }, FAST)
    await until(async () => (await events(file)).some((event) => event.event === 'start'), 'the server to start')
    const [{ pid }] = await events(file)
    await fiber.dispose()
    expect(ctx.mcp.servers()).toEqual([])
    await attachment.started
    await new Promise((resolve) => setTimeout(resolve, 1200)) // past the moment the listing would have answered
    expect(ctx.tools.list({ agentId: 'a' })).toEqual([])
    expect(warnings(lines)).toEqual([])
    await until(() => !processAlive(pid), 'the server to exit')
  })

  it('closing the app closes every connection, the app file\'s and each agent\'s', async () => {
    const { ctx, lines, mcp } = await setupWithService()
    const dir = await tempDir()
    const files = ['app', 'a', 'b'].map((name) => join(dir, `${name}.jsonl`))
    await loadMcp(ctx, { ...FAST, servers: { shared: testServer({ tools: [tool('s')], events: files[0] }) } })
    const { ctx: doorCtx } = await door(ctx)
    await doorCtx.mcp.connect('a', { mine: testServer({ tools: [tool('m')], events: files[1] }) }).started
    // b's server is still listing when the app closes
    doorCtx.mcp.connect('b', { slow: { ...testServer({ tools: [tool('m')], delayMs: 1500, events: files[2] }), startupTimeoutMs: 60_000 } })
    await until(async () => (await events(files[2]!)).length > 0, "b's server to start")
    expect(ctx.mcp.servers().map((server) => `${server.agentId ?? '*'} ${server.name} ${server.state}`)).toEqual(['* shared connected', 'a mine connected', 'b slow starting'])
    const pids = (await Promise.all(files.map(events))).map((list) => list[0].pid as number)
    await mcp.dispose()
    expect(ctx.get('mcp')).toBeUndefined()
    expect([ctx.tools.list(), ctx.tools.list({ agentId: 'a' })]).toEqual([[], []])
    await until(() => pids.every((pid) => !processAlive(pid)), 'every server to exit')
    await new Promise((resolve) => setTimeout(resolve, 1700))
    expect(ctx.tools.list({ agentId: 'b' })).toEqual([])
    expect(warnings(lines)).toEqual([])
  })
})
