import { mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { methods, type McpServer } from '@agentclientprotocol/sdk'
import { processAlive as alive, testServer } from 'dsh-tools-mcp/testing'
import { startHttpMcpServer } from './http-mcp-server.ts'
import { appFolder, appYaml, checkBalanced, drive, messageText, prompt, rejection, sessionEvents, until, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) {
    if (driven.child.exitCode === null) await driven.stop()
  }
})

const require = createRequire(import.meta.url)
/** The published filesystem server's bin, run as `node <bin> <folder>`. */
const FILESYSTEM_BIN = join(dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist/index.js')

async function start(appConfig: string[] = []) {
  const { dir, file } = await appFolder(appYaml(appConfig))
  const driven = drive([file], { env: { DSH_LOG_LEVEL: 'warn' } })
  running.push(driven)
  const init = await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
  return { dir, driven, init }
}

const newSession = async (driven: Driven, mcpServers: McpServer[]) =>
  (await driven.connection.agent.request(methods.agent.session.new, { cwd: tmpdir(), mcpServers })).sessionId

/** A dsh-tools-mcp/testing server as an ACP stdio entry (env as a list of { name, value }). */
function acpTestServer(name: string, options: Parameters<typeof testServer>[0]): McpServer {
  const { command, args, env } = testServer(options)
  return { name, command, args, env: Object.entries(env).map(([key, value]) => ({ name: key, value })) }
}

async function folderWith(file: string, text: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'dsh-acp-mcp-')))
  await writeFile(join(dir, file), text)
  return dir
}

const headers = async (dir: string, sessionId: string) =>
  (await sessionEvents(dir, sessionId)).filter((event) => event.type === 'request/header')
const toolNames = (event: { data: any }): string[] => event.data.header.tools.map((tool: { name: string }) => tool.name)
const toolOutputs = (driven: Driven, sessionId: string) => driven.updates
  .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'tool_call_update')
  .map((n) => (n.update as { rawOutput?: unknown; status?: string }))

describe('MCP servers passed in session/new', () => {
  it('initialize says which transports session/new connects', async () => {
    const { init } = await start()
    expect(init.agentCapabilities?.mcpCapabilities).toEqual({ http: true, sse: false })
  })

  it('serve their session alone: two sessions each read their own folder through one tool name, a third sees none', { timeout: 60_000 }, async () => {
    const { dir, driven } = await start()
    const folderA = await folderWith('note.txt', 'alpha\n')
    const folderC = await folderWith('note.txt', 'gamma\n')
    const fs = (folder: string): McpServer => ({ name: 'filesystem', command: process.execPath, args: [FILESYSTEM_BIN, folder], env: [] })
    const a = await newSession(driven, [fs(folderA)])
    const b = await newSession(driven, [])
    const c = await newSession(driven, [fs(folderC)])
    const read = (session: string, folder: string) =>
      prompt(driven, session, `/call mcp__filesystem__read_text_file ${JSON.stringify({ path: join(folder, 'note.txt') })}`)
    expect((await read(a, folderA)).stopReason).toBe('end_turn')
    expect((await read(c, folderC)).stopReason).toBe('end_turn')
    expect(messageText(driven.updates, a)).toBe('tool mcp__filesystem__read_text_file returned: alpha\n')
    expect(messageText(driven.updates, c)).toBe('tool mcp__filesystem__read_text_file returned: gamma\n')
    // the folder of another session is outside this session's server
    await read(a, folderC)
    expect(toolOutputs(driven, a).at(-1)).toMatchObject({ status: 'failed' })
    await prompt(driven, a, `/call mcp__filesystem__list_directory ${JSON.stringify({ path: folderA })}`)
    expect(messageText(driven.updates, a)).toContain('[FILE] note.txt')

    expect((await read(b, folderA)).stopReason).toBe('end_turn')
    expect(toolOutputs(driven, b)).toEqual([expect.objectContaining({
      status: 'failed', rawOutput: expect.stringMatching(/^unknown tool "mcp__filesystem__read_text_file"; available tools: agent, lookup, zeta$/),
    })])
    const [headerA] = await headers(dir, a)
    const [headerB] = await headers(dir, b)
    expect(toolNames(headerA!)).toContain('mcp__filesystem__read_text_file')
    expect(toolNames(headerA!)).toEqual([...toolNames(headerA!)].sort())
    expect(toolNames(headerB!)).toEqual(['agent', 'lookup', 'zeta'])
    for (const session of [a, b, c]) checkBalanced(await sessionEvents(dir, session))
    expect(await driven.stop()).toBe(0)
    expect(driven.stderr()).toBe('')
  })

  it('connect a Streamable HTTP server with its headers', { timeout: 60_000 }, async () => {
    const http = await startHttpMcpServer()
    try {
      const { dir, driven } = await start()
      const session = await newSession(driven, [{ type: 'http', name: 'remote', url: http.url, headers: [{ name: 'X-Token', value: 'abc' }] }])
      expect((await prompt(driven, session, '/call mcp__remote__echo {"text":"hi"}')).stopReason).toBe('end_turn')
      expect(messageText(driven.updates, session)).toBe('tool mcp__remote__echo returned: http echo: hi')
      expect(toolNames((await headers(dir, session))[0]!)).toEqual(['agent', 'lookup', 'mcp__remote__echo', 'zeta'])
      expect(http.headersSeen.length).toBeGreaterThan(0)
      expect(new Set(http.headersSeen)).toEqual(new Set(['abc']))
      expect(await driven.stop()).toBe(0)
      expect(driven.stderr()).toBe('')
    } finally {
      await http.close()
    }
  })

  it('hold the first prompt until the session\'s servers have listed, and stop them when the session ends', { timeout: 60_000 }, async () => {
    const { dir, driven } = await start()
    const events = join(await mkdtemp(join(tmpdir(), 'dsh-acp-mcp-')), 'events.jsonl')
    const slow = acpTestServer('slow', { delayMs: 1500, events, tools: [{ name: 'ping', inputSchema: { type: 'object', properties: {} } }] })
    const session = await newSession(driven, [slow])
    expect((await prompt(driven, session, '/call mcp__slow__ping {}')).stopReason).toBe('end_turn')
    expect(messageText(driven.updates, session)).toBe('tool mcp__slow__ping returned: ping called with {}')
    const logged = await headers(dir, session)
    expect(logged.map(toolNames)).toEqual([['agent', 'lookup', 'mcp__slow__ping', 'zeta']])
    const { pid } = JSON.parse((await readFile(events, 'utf8')).split('\n')[0]!)
    expect(alive(pid)).toBe(true)
    expect(await driven.stop()).toBe(0)
    await until(() => alive(pid) ? undefined : true, `MCP server process ${pid} to exit`, 5000)
  })

  it('serve without a server slower than mcpStartupTimeoutMs, with one warning line, add its tools when it answers, and bound calls by mcpCallTimeoutMs', { timeout: 60_000 }, async () => {
    const { dir, driven } = await start(['mcpStartupTimeoutMs: 300', 'mcpCallTimeoutMs: 400'])
    const late = acpTestServer('late', { delayMs: 2500, tools: [{ name: 'ping', inputSchema: { type: 'object', properties: {} } }, { name: 'slowly', delayMs: 5000 }] })
    const session = await newSession(driven, [late])
    expect((await prompt(driven, session, 'first')).stopReason).toBe('end_turn')
    const warnings = driven.stderr().split('\n').filter(Boolean)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/session .*: MCP server "late" has not listed its tools within startupTimeoutMs 300/)
    await until(async () => {
      await prompt(driven, session, 'again')
      return (await headers(dir, session)).length === 2 ? true : undefined
    }, 'the late server\'s tools', 15_000)
    const logged = await headers(dir, session)
    expect(logged.map((event) => event.data.reason)).toEqual(['initial', 'change'])
    expect(toolNames(logged[1]!)).toEqual(['agent', 'lookup', 'mcp__late__ping', 'mcp__late__slowly', 'zeta'])
    const messages = (await sessionEvents(dir, session)).filter((event) => event.type === 'developer/message')
    expect(messages.map((event) => event.data.added)).toEqual([['mcp__late__ping', 'mcp__late__slowly']])
    await prompt(driven, session, '/call mcp__late__slowly {}')
    expect(toolOutputs(driven, session).at(-1)).toMatchObject({
      status: 'failed', rawOutput: expect.stringMatching(/MCP server "late" did not answer tool "slowly" within 400 ms/),
    })
  })

  it('refuse a bad entry with a JSON-RPC error naming the server, and the connection serves on', { timeout: 30_000 }, async () => {
    const { driven } = await start()
    const cases: [unknown[], RegExp][] = [
      [[{ name: 'x', command: 'node', args: [], env: [] }, { name: 'x', command: 'node', args: [], env: [] }], /^session\/new: MCP server "x": is passed twice/],
      [[{ name: 'a__b', command: 'node', args: [], env: [] }], /^session\/new: MCP server "a__b": the name becomes "a__b" in tool names/],
      [[{ type: 'sse', name: 'old', url: 'http://127.0.0.1:1/sse', headers: [] }], /^session\/new: MCP server "old": transport "sse" is not supported; .*sse: false/],
      [[{ type: 'http', name: 'web', url: 'ws://127.0.0.1:1/mcp', headers: [] }], /^session\/new: MCP server "web": url "ws:\/\/127.0.0.1:1\/mcp" must use http: or https:, not ws:/],
      [[{ name: 'blank', command: ' ', args: [], env: [] }], /^session\/new: MCP server "blank": command " " must be a program to run/],
      [[{ name: 'envy', command: 'node', args: [], env: [{ name: '', value: 'v' }] }], /^session\/new: MCP server "envy": env entry .* must be \{ name: non-empty string, value: string \}/],
    ]
    for (const [mcpServers, message] of cases) {
      const error = await rejection(driven.connection.agent.request(methods.agent.session.new, { cwd: tmpdir(), mcpServers: mcpServers as McpServer[] }))
      expect({ code: error.code, message: error.message }).toEqual({ code: -32602, message: expect.stringMatching(message) })
    }
    // a value of the wrong type is refused by the SDK's own schema check, before the agent sees it
    const shape = await rejection(driven.connection.agent.request(methods.agent.session.new, {
      cwd: tmpdir(), mcpServers: [{ type: 'http', name: 'hdr', url: 'http://127.0.0.1:1/mcp', headers: [{ name: 'A', value: 1 }] }] as unknown as McpServer[],
    }))
    expect(shape.code).toBe(-32602)
    expect(await newSession(driven, [])).toMatch(/./)
    expect(driven.stderr()).toBe('')
  })
})
