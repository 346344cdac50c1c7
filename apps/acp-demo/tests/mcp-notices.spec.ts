import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { afterEach, describe, expect, it } from 'vitest'
import { methods, type McpServer } from '@agentclientprotocol/sdk'
import { testServer } from 'dsh-tools-mcp/testing'
import { appFolder, appYaml, drive, prompt, until, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

type Update = { sessionUpdate: string; [key: string]: any }
const updatesOf = (driven: Driven, sessionId: string): Update[] =>
  driven.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as Update)

/** An app whose own dsh-tools-mcp entry runs `node <missing script>`: the server can never start. */
async function ghostApp() {
  const { dir, file } = await appFolder(appYaml([], [
    '- id: mcp',
    '  name: dsh-tools-mcp',
    '  config:',
    '    restartDelayMs: 5000',
    '    servers:',
    `      ghost: { command: ${JSON.stringify(process.execPath)}, args: [./no-such-server.js] }`,
  ].join('\n')))
  return { script: join(dir, 'no-such-server.js'), file, cwd: dir }
}

async function open(file: string, cwd: string, clientCapabilities: Record<string, unknown>, mcpServers: McpServer[] = []) {
  const driven = drive([file], { cwd, env: { DSH_LOG_LEVEL: 'silent' } })
  running.push(driven)
  await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities })
  const { sessionId } = await driven.connection.agent.request(methods.agent.session.new, { cwd: tmpdir(), mcpServers })
  return { driven, sessionId }
}

describe('MCP server failures over ACP', () => {
  it('an app server that cannot start is one agent_message_chunk with its Cannot find module line, and a call to its tool says it is down', async () => {
    const { file, cwd, script } = await ghostApp()
    const { driven, sessionId } = await open(file, cwd, {})
    const line = `MCP server "ghost" failed to start: Error: Cannot find module '${script}'; retrying`
    await until(() => updatesOf(driven, sessionId).find((update) => update.sessionUpdate === 'agent_message_chunk'), 'the notice')
    expect(updatesOf(driven, sessionId).filter((update) => update.sessionUpdate === 'agent_message_chunk'))
      .toEqual([{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `(${line})\n\n` } }])
    await prompt(driven, sessionId, '/call mcp__ghost__read_graph {}')
    const result = updatesOf(driven, sessionId).find((update) => update.sessionUpdate === 'tool_call_update')!
    expect(result.status).toBe('failed')
    expect(result.rawOutput).toBe(`unknown tool "mcp__ghost__read_graph": its source is down (${line}); its tools come back when it reconnects; available tools: agent, lookup, zeta`)
    // one notice per outage: the retries say nothing more
    expect(updatesOf(driven, sessionId).filter((update) => update.content?.text?.startsWith('(MCP server'))).toHaveLength(1)
  })

  it('is a warning notice to a client that presents notices', async () => {
    const { file, cwd, script } = await ghostApp()
    const { driven, sessionId } = await open(file, cwd, { session: { notices: {} } })
    const notice = await until(() => updatesOf(driven, sessionId).find((update) => update.sessionUpdate === 'notice'), 'the notice')
    expect(notice).toEqual({ sessionUpdate: 'notice', severity: 'warning', title: `MCP server "ghost" failed to start: Error: Cannot find module '${script}'; retrying` })
  })

  it("a session's own server that exits mid-turn: its notice waits for the turn's end, before the response; its return is another notice", async () => {
    const { dir, file } = await appFolder(appYaml())
    const { command, args, env } = testServer({ tools: [{ name: 'crash', exit: true }, { name: 'ok' }] })
    const server: McpServer = { name: 'fragile', command, args, env: Object.entries(env).map(([name, value]) => ({ name, value })) }
    const { driven, sessionId } = await open(file, dir, { session: { notices: {} } }, [server])
    await prompt(driven, sessionId, '/call mcp__fragile__crash {}')
    const updates = updatesOf(driven, sessionId)
    const isServerNotice = (update: Update) => update.sessionUpdate === 'notice' && update.title.startsWith('MCP server')
    const exited = updates.findIndex(isServerNotice)
    expect(updates[exited]).toEqual({ sessionUpdate: 'notice', severity: 'warning', title: 'MCP server "fragile" exited; its tools are gone until it restarts' })
    // after the whole answer: the last model text comes before the notice
    expect(updates.findLastIndex((update) => update.sessionUpdate === 'agent_message_chunk')).toBeLessThan(exited)
    const back = await until(() => updatesOf(driven, sessionId).filter(isServerNotice)[1], 'the return')
    expect(back).toEqual({ sessionUpdate: 'notice', severity: 'info', title: 'MCP server "fragile" is back with 2 tools' })
  })
})
