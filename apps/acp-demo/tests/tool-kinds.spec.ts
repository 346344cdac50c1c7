import { methods } from '@agentclientprotocol/sdk'
import type { McpServer, RequestPermissionRequest, RequestPermissionResponse } from '@agentclientprotocol/sdk'
import { tmpdir } from 'node:os'
import { testServer } from 'dsh-tools-mcp/testing'
import { afterEach, describe, expect, it } from 'vitest'
import { appFolder, drive, messageText, openSession, prompt, sessionEvents, spawnApp, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

/**
 * acpx's default permission mode (approve-reads) without a terminal: a call of kind read or search is
 * approved with the allow option; for any other nobody can be asked, so it picks the reject option.
 */
function approveReads(asked: RequestPermissionRequest[]) {
  return async (params: RequestPermissionRequest): Promise<RequestPermissionResponse> => {
    asked.push(params)
    const read = params.toolCall.kind === 'read' || params.toolCall.kind === 'search'
    const option = params.options.find((offered) => offered.kind === (read ? 'allow_once' : 'reject_once'))
    return option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : { outcome: { outcome: 'cancelled' } }
  }
}

function mcpServer(name: string, tools: Parameters<typeof testServer>[0]['tools']): McpServer {
  const { command, args, env } = testServer({ tools })
  return { name, command, args, env: Object.entries(env).map(([key, value]) => ({ name: key, value })) }
}

const toolCalls = (driven: Driven, sessionId: string) => driven.updates
  .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === 'tool_call')
  .map((n) => n.update as { title: string; kind: string })

const YAML = [
  '- { id: app, name: dsh-acp-demo, config: { persistenceRoot: ./sessions, permissions: { default: ask } } }',
  '- id: tools',
  '  name: dsh-tools-static',
  '  config:',
  '    tools:',
  '      - { name: read_file, description: Read a file., kind: read, result: "(demo) the file is empty" }',
  '      - { name: save_file, description: Save a file., kind: edit }',
].join('\n') + '\n'

describe('ACP tool kinds (the real bin, the SDK client)', () => {
  it('sends each MCP tool\'s kind from its annotations, and other when it has none', { timeout: 40_000 }, async () => {
    const { file } = await appFolder(YAML)
    const asked: RequestPermissionRequest[] = []
    const driven = drive([file], { onPermission: approveReads(asked) })
    running.push(driven)
    await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    const server = mcpServer('files', [
      { name: 'read_note', annotations: { readOnlyHint: true } },
      { name: 'write_note', annotations: { readOnlyHint: false, destructiveHint: false } },
      { name: 'drop_note', annotations: { destructiveHint: true } },
      { name: 'fetch_page', annotations: { readOnlyHint: true, openWorldHint: true } },
      { name: 'plain' },
    ])
    const { sessionId } = await driven.connection.agent.request(methods.agent.session.new, { cwd: tmpdir(), mcpServers: [server] })
    for (const name of ['read_note', 'write_note', 'drop_note', 'fetch_page', 'plain']) {
      expect(await prompt(driven, sessionId, `/call mcp__files__${name} {}`)).toMatchObject({ stopReason: 'end_turn' })
    }
    expect(toolCalls(driven, sessionId).map((call) => [call.title, call.kind])).toEqual([
      ['mcp__files__read_note', 'read'], ['mcp__files__write_note', 'edit'], ['mcp__files__drop_note', 'delete'],
      ['mcp__files__fetch_page', 'fetch'], ['mcp__files__plain', 'other'],
    ])
    // the read-only ones run without a question (the app's policy allows readOnlyHint); the others are asked
    // with their kind, which is what the client's policy reads, and it refuses them in its own name
    expect(asked.map((params) => [params.toolCall.title, params.toolCall.kind])).toEqual([
      ['mcp__files__write_note', 'edit'], ['mcp__files__drop_note', 'delete'], ['mcp__files__plain', 'other'],
    ])
    const text = messageText(driven.updates, sessionId)
    expect(text).toContain('tool mcp__files__read_note returned: ')
    expect(text).toContain('tool mcp__files__fetch_page returned: ')
    expect(text).not.toContain('the user denied')
  })

  it('with a client approving reads only, a static tool of kind read runs and one of kind edit is refused in the client\'s name', { timeout: 30_000 }, async () => {
    const { dir, file } = await appFolder(YAML)
    const asked: RequestPermissionRequest[] = []
    const driven = drive([file], { onPermission: approveReads(asked) })
    running.push(driven)
    await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    const { sessionId } = await driven.connection.agent.request(methods.agent.session.new, { cwd: tmpdir(), mcpServers: [] })
    await prompt(driven, sessionId, '/call read_file {"path":"a"}')
    await prompt(driven, sessionId, '/call save_file {"path":"a"}')
    expect(asked.map((params) => params.toolCall.kind)).toEqual(['read', 'edit'])
    expect(toolCalls(driven, sessionId).map((call) => call.kind)).toEqual(['read', 'edit'])
    expect(messageText(driven.updates, sessionId)).toBe('tool read_file returned: (demo) the file is empty'
      + 'tool save_file returned: the client refused the call of tool "save_file": it chose the option "Reject" '
      + '(its user\'s answer, or its own permission policy\'s without asking anyone); it did not run')
    expect(await driven.stop()).toBe(0)
    const decisions = (await sessionEvents(dir, sessionId)).filter((event) => event.type === 'permission/decision').map(({ data }) => [data.name, data.decision])
    expect(decisions).toEqual([['read_file', 'allow'], ['save_file', 'deny']])
  })

  it('a client answering "cancelled" while the turn goes on refuses the call in its own name', { timeout: 30_000 }, async () => {
    const { file } = await appFolder(YAML)
    const driven = drive([file], { onPermission: async () => ({ outcome: { outcome: 'cancelled' } }) })
    running.push(driven)
    await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    const { sessionId } = await driven.connection.agent.request(methods.agent.session.new, { cwd: tmpdir(), mcpServers: [] })
    expect(await prompt(driven, sessionId, '/call save_file {}')).toMatchObject({ stopReason: 'end_turn' })
    expect(messageText(driven.updates, sessionId)).toBe('tool save_file returned: the client refused the call of tool "save_file": '
      + 'it answered the permission request with "cancelled" (its user\'s answer, or its own permission policy\'s without asking anyone); it did not run')
  })

  it('refuses an unknown kind on a static tool at boot, in one line naming the ACP kinds', { timeout: 20_000 }, async () => {
    const { file } = await appFolder(YAML.replace('kind: edit', 'kind: write'))
    const app = spawnApp([file])
    app.child.stdin.end()
    expect(await app.exited).not.toBe(0)
    const lines = app.stderr().trim().split('\n').filter((line) => line.includes('kind'))
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('tools-static: tools[1]: tool "save_file" has kind "write"; the ACP tool kinds are read, edit, delete, move, search, execute, think, fetch, switch_mode, other')
  })

  it('the shipped app file gives its demo tools their kinds, so a client approving reads runs read_file', { timeout: 30_000 }, async () => {
    // the shipped file keeps sessions in the user's state folder: a temporary one here
    const { dir } = await appFolder('')
    const driven = drive([], { onPermission: approveReads([]), env: { XDG_STATE_HOME: dir, HOME: dir } })
    running.push(driven)
    await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    const { sessionId } = await driven.connection.agent.request(methods.agent.session.new, { cwd: tmpdir(), mcpServers: [] })
    for (const call of ['read_file {"path":"a"}', 'list_files {}', 'web_search {"query":"vole"}']) await prompt(driven, sessionId, `/call ${call}`)
    expect(toolCalls(driven, sessionId).map((call) => [call.title, call.kind])).toEqual([['read_file', 'read'], ['list_files', 'read'], ['web_search', 'fetch']])
    expect(messageText(driven.updates, sessionId)).toContain('tool read_file returned: (demo) the file is empty')
  })

  it('the request header is byte for byte the same with and without kinds', { timeout: 30_000 }, async () => {
    const header = async (yaml: string) => {
      const { dir, file } = await appFolder(yaml)
      const driven = drive([file])
      running.push(driven)
      const sessionId = await openSession(driven)
      await prompt(driven, sessionId, 'hello')
      expect(await driven.stop()).toBe(0)
      return JSON.stringify((await sessionEvents(dir, sessionId)).find((event) => event.type === 'request/header')!.data.header)
    }
    const withKinds = await header(YAML)
    expect(withKinds).toContain('read_file')
    expect(await header(YAML.replace(', kind: read', '').replace(', kind: edit', ''))).toBe(withKinds)
  })
})
