import { mkdtemp, readdir, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defaultSessionRoot } from 'dsh-session'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { methods } from '@agentclientprotocol/sdk'
import {
  appFolder, appYaml, checkBalanced, drive, messageText, openSession, prompt, rejection, sessionEvents, spawnApp, until,
  type Driven, type SpawnOptions,
} from './harness.ts'

const running: Driven[] = []
function start(args: string | string[], options?: SpawnOptions): Driven {
  const driven = drive(typeof args === 'string' ? [args] : args, options)
  running.push(driven)
  return driven
}
afterEach(async () => {
  vi.restoreAllMocks()
  for (const driven of running.splice(0)) {
    if (driven.child.exitCode === null) await driven.stop()
  }
})

describe('dsh-acp-demo over stdio', () => {
  it('answers initialize with its identity and baseline capabilities', async () => {
    const { file } = await appFolder(appYaml(['agentTitle: Demo Agent']))
    const agent = start(file)
    const response = await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1 })
    expect(response.protocolVersion).toBe(1)
    expect(response.agentInfo).toEqual({ name: 'dsh-acp-demo', title: 'Demo Agent', version: '0.1.0' })
    expect(response.agentCapabilities?.loadSession).toBe(true)
    expect(response.agentCapabilities?.promptCapabilities).toEqual({ image: false, audio: false, embeddedContext: false })
  })

  it('streams the echo of a prompt as agent_message_chunk updates and ends the turn', async () => {
    const { dir, file } = await appFolder(appYaml())
    const agent = start(file)
    const sessionId = await openSession(agent)
    const response = await prompt(agent, sessionId, 'hello')
    expect(response.stopReason).toBe('end_turn')
    expect(messageText(agent.updates, sessionId)).toBe('echo: hello')
    expect(agent.updates.length).toBeGreaterThan(0)
    expect(await agent.stop()).toBe(0)
    // the session id is the DSH session id: its log exists under persistenceRoot
    const events = await sessionEvents(dir, sessionId)
    expect(events.find((event) => event.type === 'user/message')?.data.text).toBe('hello')
    checkBalanced(events)
  })

  it('reports a tool call and its result, then the final text', async () => {
    const { file } = await appFolder(appYaml())
    const agent = start(file)
    const sessionId = await openSession(agent)
    const response = await prompt(agent, sessionId, '/call lookup {"word":"vole"}')
    expect(response.stopReason).toBe('end_turn')
    const kinds = agent.updates.map((n) => n.update.sessionUpdate)
    const call = kinds.indexOf('tool_call')
    const result = kinds.indexOf('tool_call_update')
    expect(call).toBeGreaterThanOrEqual(0)
    expect(result).toBeGreaterThan(call)
    // the answer's chunks, then the turn's usage_update (context in use and window) before the response
    expect(kinds.slice(result + 1, -1).every((kind) => kind === 'agent_message_chunk')).toBe(true)
    expect(kinds.at(-1)).toBe('usage_update')
    const started = agent.updates[call].update
    expect(started).toMatchObject({ title: 'lookup', kind: 'other', status: 'in_progress', rawInput: { word: 'vole' } })
    const finished = agent.updates[result].update
    expect(finished).toMatchObject({
      toolCallId: (started as { toolCallId: string }).toolCallId,
      status: 'completed',
      content: [{ type: 'content', content: { type: 'text', text: 'a small furry animal' } }],
    })
    expect(messageText(agent.updates, sessionId)).toBe('tool lookup returned: a small furry animal')
  })

  it('stops a turn on session/cancel with stopReason cancelled and a balanced log', async () => {
    const script = { responses: [{ text: 'too late', delayMs: 20_000 }, { text: 'after the cancel' }] }
    const extra = [
      '- id: scripted-slow',
      '  name: dsh-llm-scripted',
      '  config: { models: [slow], script: ./script.json }',
    ].join('\n')
    const { dir, file } = await appFolder(appYaml(['model: slow'], extra), { 'script.json': JSON.stringify(script) })
    const agent = start(file)
    const sessionId = await openSession(agent)
    const turn = prompt(agent, sessionId, 'take your time')
    // cancel once the model call is under way, i.e. the step has started (the log is written as it goes)
    await until(async () => (await sessionEvents(dir, sessionId)).some((event) => event.type === 'step/start') || undefined, 'step/start')
    const sentAt = Date.now()
    await agent.connection.agent.notify(methods.agent.session.cancel, { sessionId })
    expect((await turn).stopReason).toBe('cancelled')
    expect(Date.now() - sentAt).toBeLessThan(5_000)
    expect(messageText(agent.updates, sessionId)).toBe('')

    // the session serves the next prompt
    expect((await prompt(agent, sessionId, 'again')).stopReason).toBe('end_turn')
    expect(messageText(agent.updates, sessionId)).toBe('after the cancel')
    expect(await agent.stop()).toBe(0)
    const events = await sessionEvents(dir, sessionId)
    checkBalanced(events)
    expect(events.filter((event) => event.type === 'turn/end').map((event) => event.data.reason)).toEqual(['cancelled', 'done'])
  })

  it.each([
    ['the client closes stdin', (agent: Driven) => { agent.child.stdin.end() }],
    ['it gets SIGTERM', (agent: Driven) => { agent.child.kill('SIGTERM') }],
  ])('exits 0 with a balanced, cancelled log when %s mid-turn', async (_, stop) => {
    const script = { responses: [{ text: 'never', delayMs: 20_000 }] }
    const extra = '- id: slow\n  name: dsh-llm-scripted\n  config: { models: [slow], script: ./script.json }'
    const { dir, file } = await appFolder(appYaml(['model: slow'], extra), { 'script.json': JSON.stringify(script) })
    const agent = start(file)
    const sessionId = await openSession(agent)
    prompt(agent, sessionId, 'wait').catch(() => {})
    await until(async () => (await sessionEvents(dir, sessionId)).some((event) => event.type === 'step/start') || undefined, 'step/start')
    stop(agent)
    expect(await agent.exited).toBe(0)
    const events = await sessionEvents(dir, sessionId)
    checkBalanced(events)
    expect(events.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'cancelled' } })
  })

  it('answers a prompt with a JSON-RPC error naming the unregistered tool of a bad toolOrder, and stays up', async () => {
    const { file } = await appFolder(appYaml(["toolOrder: [nope, '<unlisted-tools>']"]))
    const agent = start(file)
    const sessionId = await openSession(agent)
    for (const text of ['hello', 'hello again']) {
      const error = await rejection(prompt(agent, sessionId, text))
      expect(error.code).toBe(-32603)
      expect(error.message).toMatch(/"nope"/)
      expect(error.message).not.toMatch(/^Internal error/)
      expect(error.data).toMatchObject({ code: 'TURN_FAILED', sessionId })
    }
    // Nothing of the failed turns reaches the client; only the commands advertised after session/new do.
    expect(agent.updates.map((n) => n.update.sessionUpdate)).toEqual(['available_commands_update'])
    expect(agent.child.exitCode).toBe(null)
    // and it still serves other requests
    await agent.connection.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] })
    expect(agent.stderr()).toMatch(/nope/)
  })

  it('answers a line that is not JSON with a parse error and a request with bad params with invalid params', async () => {
    const { file } = await appFolder(appYaml())
    const agent = start(file)
    const sessionId = await openSession(agent)
    // the test's client also receives these two responses, to requests it never sent, and says so on stderr
    vi.spyOn(console, 'error').mockImplementation(() => {})
    agent.writeRaw('this is not json\n')
    agent.writeRaw('{"jsonrpc":"2.0","id":"bad-params","method":"session/prompt","params":{"sessionId":5}}\n')
    const lines = () => agent.stdout().split('\n').filter(Boolean).map((line) => JSON.parse(line))
    const parseError = await until(() => lines().find((message) => message.error?.code === -32700), 'the parse error')
    expect(parseError).toMatchObject({ jsonrpc: '2.0', id: null, error: { message: 'Parse error' } })
    const invalid = await until(() => lines().find((message) => message.id === 'bad-params'), 'the invalid-params error')
    expect(invalid.error.code).toBe(-32602)
    // the connection lives on
    expect((await prompt(agent, sessionId, 'still there?')).stopReason).toBe('end_turn')
    expect(messageText(agent.updates, sessionId)).toBe('echo: still there?')
  })

  it('writes nothing but JSON-RPC 2.0 messages to stdout, even at the debug log level', async () => {
    const { file } = await appFolder(appYaml())
    const agent = start(file, { env: { DSH_LOG_LEVEL: 'debug' } })
    const sessionId = await openSession(agent)
    await prompt(agent, sessionId, 'hello')
    await prompt(agent, sessionId, '/call zeta {}')
    await rejection(prompt(agent, 'no-such-session', 'hi'))
    expect(await agent.stop()).toBe(0)
    const raw = agent.stdout()
    expect(raw.endsWith('\n')).toBe(true)
    const lines = raw.slice(0, -1).split('\n')
    expect(lines.length).toBeGreaterThan(6)
    for (const line of lines) {
      const message = JSON.parse(line)
      expect(message.jsonrpc).toBe('2.0')
      expect('method' in message || 'result' in message || 'error' in message).toBe(true)
    }
  })

  it('fails the boot on toolOrder: [] with one stderr line naming the file, the entry and the value', async () => {
    // the app entry alone: with a tools entry too, boot also reports that entry as never started
    const { file } = await appFolder('- id: app\n  name: dsh-acp-demo\n  config: { persistenceRoot: ./sessions, toolOrder: [] }\n')
    const app = spawnApp([file])
    app.child.stdin.end()
    const code = await app.exited
    expect(code).not.toBe(0)
    expect(app.stdout()).toBe('')
    const lines = app.stderr().trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(file.replace(/^.*\//, ''))
    expect(lines[0]).toMatch(/entry "app"/)
    expect(lines[0]).toMatch(/toolOrder/)
    expect(lines[0]).toMatch(/empty/)
  })

  it('fails the boot when no entry runs the app plugin', async () => {
    const { file } = await appFolder('- id: app\n  name: dsh-acp-demo\n  disabled: true\n')
    const app = spawnApp([file])
    app.child.stdin.end()
    expect(await app.exited).not.toBe(0)
    expect(app.stdout()).toBe('')
    expect(app.stderr()).toMatch(/no entry runs the app plugin/)
  })

  it('prints its usage on stderr for --help and refuses a second argument', async () => {
    const help = spawnApp(['--help'])
    expect(await help.exited).toBe(0)
    expect(help.stdout()).toBe('')
    expect(help.stderr()).toMatch(/^usage: dsh-acp-demo \[config\.yml\]/)
    const extra = spawnApp(['a.yml', 'b.yml'])
    extra.child.stdin.end()
    expect(await extra.exited).toBe(1)
    expect(extra.stdout()).toBe('')
    expect(extra.stderr()).toMatch(/expected at most one argument \(the app file\), got 2/)
  })

  it('fails the boot on a missing app file, naming it', async () => {
    const missing = spawnApp(['/nonexistent/dsh/cordis.yml'])
    missing.child.stdin.end()
    expect(await missing.exited).toBe(1)
    expect(missing.stdout()).toBe('')
    expect(missing.stderr()).toMatch(/\/nonexistent\/dsh\/cordis\.yml: cannot read app file/)
  })

  it('boots its own cordis.yml from any working directory, keeping sessions in the user\'s state folder', async () => {
    const [cwd, home, state] = await Promise.all(['cwd', 'home', 'state'].map((name) => mkdtemp(join(tmpdir(), `dsh-acp-${name}-`))))
    const env = { HOME: home, XDG_STATE_HOME: state }
    const agent = start([], { cwd, env })
    const sessionId = await openSession(agent, cwd)
    const idle = (await agent.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId
    expect((await prompt(agent, sessionId, '/call read_file {"path":"a"}')).stopReason).toBe('end_turn')
    expect(messageText(agent.updates, sessionId)).toMatch(/^tool read_file returned: /)
    expect(await agent.stop()).toBe(0)
    // an editor starting the agent in a repository finds nothing written there, nor next to the app file
    expect(await readdir(cwd)).toEqual([])
    expect(await readdir(home)).toEqual([])
    await expect(stat(fileURLToPath(new URL(`../.sessions/${sessionId}.jsonl`, import.meta.url)))).rejects.toThrow(/ENOENT/)
    // both sessions are in <state>/dsh/sessions/<working folder key>/, the one without a prompt too (its creation is logged)
    // the session logs, and beside them the offline model's emulated prompt cache
    expect((await readdir(defaultSessionRoot(cwd, env))).sort()).toEqual([`${sessionId}.jsonl`, `${idle}.jsonl`, 'scripted-echo.cache'].sort())

    const again = start([], { cwd, env })
    await again.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    await again.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] })
    expect(await again.connection.agent.request(methods.agent.session.load, { sessionId: idle, cwd, mcpServers: [] })).toEqual({})
    expect(await again.stop()).toBe(0)
  })
})
