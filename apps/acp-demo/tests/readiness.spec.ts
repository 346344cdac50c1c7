import { afterEach, describe, expect, it } from 'vitest'
import { methods } from '@agentclientprotocol/sdk'
import { appFolder, appYaml, checkBalanced, drive, messageText, prompt, sessionEvents, until, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) {
    if (driven.child.exitCode === null) await driven.stop()
  }
})

/** The harness app plus one slow tool source: `slow_search` registers `delayMs` after its plugin starts. */
async function slowApp(delayMs: number, env: Record<string, string> = {}) {
  const extra = [
    '- id: slow-source',
    '  name: dsh-tools-static',
    `  config: { tools: [{ name: slow_search, description: Search slowly., delayMs: ${delayMs} }] }`,
  ].join('\n')
  const { dir, file } = await appFolder(appYaml([], extra))
  const driven = drive([file], { env: { DSH_LOG_LEVEL: 'warn', DSH_STARTUP_TIMEOUT_MS: '', ...env } })
  running.push(driven)
  return { dir, driven }
}

async function open(driven: Driven, dir: string): Promise<string> {
  await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
  const { sessionId } = await driven.connection.agent.request(methods.agent.session.new, { cwd: dir, mcpServers: [] })
  return sessionId
}

const toolNames = (event: { data: any }) => event.data.header.tools.map((tool: { name: string }) => tool.name)

describe('readiness over ACP', () => {
  it('answers initialize and session/new while a tool source starts; the first prompt waits for it', { timeout: 40_000 }, async () => {
    const { dir, driven } = await slowApp(6000)
    const sessionId = await open(driven, dir)
    let answered = false
    const answer = prompt(driven, sessionId, 'hello').then((response) => { answered = true; return response })
    await new Promise((resolve) => setTimeout(resolve, 1000))
    // still starting: no turn yet, nothing in the log but what session/new wrote
    expect(answered).toBe(false)
    expect((await sessionEvents(dir, sessionId)).some((event) => event.type === 'turn/start')).toBe(false)
    expect((await answer).stopReason).toBe('end_turn')
    expect(messageText(driven.updates, sessionId)).toBe('echo: hello')
    const events = await sessionEvents(dir, sessionId)
    checkBalanced(events)
    expect(events.filter((event) => event.type === 'request/header').map(toolNames)).toEqual([['agent', 'lookup', 'slow_search', 'zeta']])
    expect(driven.stderr()).toBe('')
  })

  it('answers a prompt cancelled while it waits for readiness with cancelled, and runs no turn for it', { timeout: 40_000 }, async () => {
    const { dir, driven } = await slowApp(6000)
    const sessionId = await open(driven, dir)
    const answer = prompt(driven, sessionId, 'never mind')
    await new Promise((resolve) => setTimeout(resolve, 300))
    await driven.connection.agent.notify(methods.agent.session.cancel, { sessionId })
    expect((await answer).stopReason).toBe('cancelled')
    expect((await sessionEvents(dir, sessionId)).some((event) => event.type === 'turn/start')).toBe(false)
    // the session serves the next prompt once the app is ready
    expect((await prompt(driven, sessionId, 'again')).stopReason).toBe('end_turn')
    expect(messageText(driven.updates, sessionId)).toBe('echo: again')
  })

  it('serves the first prompt at the startup timeout without the slow source, with one warning on stderr', { timeout: 40_000 }, async () => {
    const { dir, driven } = await slowApp(30_000, { DSH_STARTUP_TIMEOUT_MS: '800' })
    const sessionId = await open(driven, dir)
    expect((await prompt(driven, sessionId, 'hello')).stopReason).toBe('end_turn')
    const headers = (await sessionEvents(dir, sessionId)).filter((event) => event.type === 'request/header')
    expect(headers.map(toolNames)).toEqual([['agent', 'lookup', 'zeta']])
    await until(() => driven.stderr().includes('\n') || undefined, 'the warning')
    expect(driven.stderr()).toBe('[warn] app-boot: startup timeout of 800 ms passed; serving without the entry still starting: '
      + '"slow-source" (dsh-tools-static); it joins when it is up (DSH_STARTUP_TIMEOUT_MS sets the timeout)\n')
    // stdout carried protocol bytes only
    for (const line of driven.stdout().split('\n').filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe('2.0')
  })

  it('exits 1 with the one boot error line when a source fails while starting, after initialize was answered', { timeout: 40_000 }, async () => {
    const extra = '- { id: dup, name: dsh-tools-static, config: { tools: [{ name: lookup, description: Again., delayMs: 2500 }] } }'
    const { file } = await appFolder(appYaml([], extra))
    const driven = drive([file], { env: { DSH_LOG_LEVEL: 'warn', DSH_STARTUP_TIMEOUT_MS: '' } })
    running.push(driven)
    const response = await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    expect(response.protocolVersion).toBe(1)
    expect(await driven.exited).toBe(1)
    expect(driven.stderr()).toBe(`${file}: entry "dup" (dsh-tools-static): failed to start: tool "lookup" is already registered\n`)
  })

  it('exits 0 at once when the editor closes stdin while the app starts', { timeout: 40_000 }, async () => {
    const { driven } = await slowApp(30_000, { DSH_STARTUP_TIMEOUT_MS: '60000' })
    await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    const before = Date.now()
    expect(await driven.stop()).toBe(0)
    expect(Date.now() - before).toBeLessThan(10_000)
  })
})
