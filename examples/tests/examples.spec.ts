import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { client, methods, ndJsonStream } from '@agentclientprotocol/sdk'
import type { SessionNotification } from '@agentclientprotocol/sdk'
import { describe, expect, it } from 'vitest'
import { EXAMPLES, bin, runBin, startRemoteStub } from './run.ts'

const KEY = { DEEPSEEK_API_KEY: 'sk-example-not-a-real-key' }

/** The harness's `agent` tool in a `/tools` listing (on by default), its long description shortened to `…`. */
const short = (stdout: string) => stdout.replace(/^(\d+)\. agent — Runs a child agent on a task[^\n]*$/m, '$1. agent — …')

describe('every app file of the READMEs, booted as written (examples/)', () => {
  it('app-file.yml: the stdio demo with two static tools', async () => {
    const exit = await runBin('dsh-stdio-demo', ['app-file.yml'], '/tools\nhello\n')
    expect(exit).toMatchObject({ code: 0, stderr: '' })
    expect(short(exit.stdout)).toBe('3 tools in request order:\n1. agent — …\n2. list_dir — List a folder.\n3. read_file — Read a file.\necho: hello\n')
  })

  it('mcp.yml: three MCP servers by name, two of them real packages next to the file, under its permission policy', { timeout: 60_000 }, async () => {
    const remote = await startRemoteStub(8931)
    try {
      const exit = await runBin('dsh-stdio-demo', ['mcp.yml'], [
        '/tools',
        '/call mcp__filesystem__list_allowed_directories {}',
        '/call mcp__memory__read_graph {}',
        '/call mcp__filesystem__move_file {"source":"a","destination":"b"}',
        '/call mcp__remote__echo {"text":"hi"}',
        '',
      ].join('\n'))
      expect(exit.code, exit.stderr).toBe(0)
      const lines = exit.stdout.trimEnd().split('\n')
      const tools = lines.filter((line) => /^\d+\. /.test(line)).map((line) => line.replace(/^\d+\. (\S+).*$/, '$1'))
      expect(tools).toContain('mcp__filesystem__write_file')
      expect(tools, exit.stderr).toContain('mcp__memory__read_graph')
      expect(tools).toContain('mcp__remote__echo')
      // each answer starts a line; an answer may span several lines (the allowed folders, the graph)
      expect(exit.stdout).toContain(`tool mcp__filesystem__list_allowed_directories returned: Allowed directories:\n${join(EXAMPLES, 'workspace')}\n`)
      expect(exit.stdout).toMatch(/^tool mcp__memory__read_graph returned: \{/m)
      expect(exit.stdout).toContain('\ntool mcp__filesystem__move_file returned: tool "mcp__filesystem__move_file" is denied by the permission policy '
        + '(permissions.deny: "mcp__filesystem__move_file"); the call did not run\n')
      expect(exit.stdout).toMatch(/^tool mcp__remote__echo returned: tool "mcp__remote__echo" needs permission .* permissions\.allow/m)
      expect(new Set(remote.authorizations)).toEqual(new Set(['Bearer demo-token']))
    } finally {
      await remote.close()
    }
  })

  it('real-model.yml: boots with the key in the environment (the model is not called)', async () => {
    const exit = await runBin('dsh-stdio-demo', ['real-model.yml'], '/tools\n', KEY)
    expect(exit).toMatchObject({ code: 0, stderr: '' })
    expect(short(exit.stdout)).toBe('1 tool in request order:\n1. agent — …\n')
  })

  it('local-engine.yml: boots with its slot affinity on the generic profile (the local server is not called)', async () => {
    const exit = await runBin('dsh-stdio-demo', ['local-engine.yml'], '/tools\n', { LOCAL_API_KEY: 'sk-local' })
    expect(exit).toMatchObject({ code: 0, stderr: '' })
    expect(short(exit.stdout)).toBe('1 tool in request order:\n1. agent — …\n')
  })

  it('tools-static.yml: delayed, deferred and after-ready tools', async () => {
    const exit = await runBin('dsh-stdio-demo', ['tools-static.yml'], '/tools\n')
    expect(exit).toMatchObject({ code: 0, stderr: '' })
    expect(short(exit.stdout)).toBe('3 tools in request order:\n1. agent — …\n2. apply_patch — Apply a patch.\n3. read_file — Read a file.\n')
  })

  it('agent-spine.yml: the bundle alone, with toolOrder placing its tools (dsh-prompt inspect)', async () => {
    const exit = await runBin('dsh-prompt', ['inspect', 'agent-spine.yml'])
    expect(exit.code).toBe(0)
    expect(exit.stdout.match(/^ {2}\d+\. \S+/gm)).toEqual(['  1. read_file', '  2. agent', '  3. grep', '  4. write_file'])
    expect(exit.stdout).toContain('You review TypeScript changes.')
  })

  it.each([
    ['llm-openai.yml', 'deepseek-flash'],
    ['llm-anthropic.yml', 'deepseek-chat'],
    ['llm-scripted.yml', 'scripted-echo'],
  ])('%s: the adapter entry beside the bundle (dsh-prompt inspect)', async (file, model) => {
    const exit = await runBin('dsh-prompt', ['inspect', file], '', KEY)
    expect(exit).toMatchObject({ code: 0 })
    expect(exit.stdout).toMatch(new RegExp(`^model: ${model} `, 'm'))
  })

  it('app-boot.yml: a system prompt entry and a disabled one (dsh-prompt inspect)', async () => {
    const exit = await runBin('dsh-prompt', ['inspect', 'app-boot.yml'])
    expect(exit.code).toBe(0)
    expect(exit.stdout).toContain('Be brief.')
  })

  it('acp-demo.yml: an editor session through the ACP SDK client', { timeout: 30_000 }, async () => {
    const child = spawn(bin('dsh-acp-demo'), ['acp-demo.yml'], { cwd: EXAMPLES, stdio: ['pipe', 'pipe', 'pipe'] })
    const input = new ReadableStream<Uint8Array>({
      start(controller) {
        child.stdout.on('data', (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk)))
        child.stdout.on('end', () => { try { controller.close() } catch {} })
      },
    })
    const updates: SessionNotification[] = []
    const connection = client({ name: 'examples' })
      .onNotification(methods.client.session.update, ({ params }) => { updates.push(params) })
      .connect(ndJsonStream(Writable.toWeb(child.stdin), input))
    await connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    const { sessionId } = await connection.agent.request(methods.agent.session.new, { cwd: EXAMPLES, mcpServers: [] })
    const response = await connection.agent.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: '/call read_file {}' }] })
    expect(response.stopReason).toBe('end_turn')
    const text = updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk').map((n) => (n.update as any).content.text).join('')
    expect(text).toBe('tool read_file returned: (demo) the file is empty')
    const exited = new Promise((resolve) => child.on('exit', resolve))
    child.stdin.end()
    expect(await exited).toBe(0)
    connection.close()
  })
})

describe('plugin names in an app file outside this folder', () => {
  it.each(['dsh-stdio-demo', 'dsh-acp-demo'])('%s resolves dsh-tools-mcp by name from its own dependencies', { timeout: 30_000 }, async (app) => {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-examples-'))
    await writeFile(join(dir, 'app.yml'), [
      `- { id: app, name: ${app}, config: { persistenceRoot: ./sessions } }`,
      '- { id: mcp, name: dsh-tools-mcp, config: { servers: {} } }',
    ].join('\n'))
    // the ACP app answers on stdout only once a client speaks; a closed stdin ends both after the boot
    const exit = await runBin(app, [join(dir, 'app.yml')], app === 'dsh-stdio-demo' ? '/tools\n' : '')
    expect(exit.stderr).not.toContain('cannot resolve plugin')
    expect(exit.code).toBe(0)
  })

  it('resolves a plugin installed next to the app file (npm i some-dsh-plugin) before the app\'s own dependencies', { timeout: 30_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-examples-'))
    const pkg = join(dir, 'node_modules', 'some-dsh-plugin')
    await mkdir(pkg, { recursive: true })
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'some-dsh-plugin', type: 'module', exports: './index.js' }))
    await writeFile(join(pkg, 'index.js'), [
      "export const name = 'some-dsh-plugin'",
      "export const inject = ['tools']",
      "export function apply(ctx) { ctx.tools.register({ name: 'installed_tool', description: 'From next to the app file.', parameters: { type: 'object' }, execute: () => 'hi' }) }",
    ].join('\n'))
    await writeFile(join(dir, 'app.yml'), '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }\n- { id: mine, name: some-dsh-plugin }\n')
    const exit = await runBin('dsh-stdio-demo', [join(dir, 'app.yml')], '/tools\n/call installed_tool {}\n')
    expect(exit).toMatchObject({ code: 0, stderr: '→ installed_tool {}\n← hi\n' })
    expect(short(exit.stdout)).toBe('2 tools in request order:\n1. agent — …\n2. installed_tool — From next to the app file.\ntool installed_tool returned: hi\n')
  })

  it('imports a plugin folder with a package.json named by a relative path', { timeout: 30_000 }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dsh-examples-'))
    await mkdir(join(dir, 'my-plugin'))
    await writeFile(join(dir, 'my-plugin', 'package.json'), JSON.stringify({ name: 'my-plugin', type: 'module', main: 'plugin.js' }))
    await writeFile(join(dir, 'my-plugin', 'plugin.js'), "export const inject = ['tools']\nexport function apply(ctx) { ctx.tools.register({ name: 'folder_tool', description: 'From a folder.', parameters: { type: 'object' }, execute: () => 'ok' }) }\n")
    await writeFile(join(dir, 'app.yml'), '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions } }\n- { id: mine, name: ./my-plugin }\n')
    const exit = await runBin('dsh-stdio-demo', [join(dir, 'app.yml')], '/tools\n')
    expect(exit).toMatchObject({ code: 0 })
    expect(short(exit.stdout)).toBe('2 tools in request order:\n1. agent — …\n2. folder_tool — From a folder.\n')
  })
})
