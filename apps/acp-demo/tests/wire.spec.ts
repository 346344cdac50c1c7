import { afterEach, describe, expect, it } from 'vitest'
import { methods } from '@agentclientprotocol/sdk'
import { readFileSync } from 'node:fs'
import { appFolder, appYaml, drive, messageText, prompt, spawnApp, until, type Driven } from './harness.ts'

const running: Driven[] = []
function start(file: string): Driven {
  const driven = drive([file])
  running.push(driven)
  return driven
}
afterEach(async () => {
  for (const driven of running.splice(0)) {
    if (driven.child.exitCode === null) await driven.stop()
  }
})

const lines = (driven: Driven) => driven.stdout().split('\n').filter(Boolean).map((line) => JSON.parse(line))

describe('the ACP wire', () => {
  it('serves session/new and a prompt pipelined right behind initialize, without waiting for its answer', async () => {
    const { file } = await appFolder(appYaml())
    const agent = start(file)
    const { agent: peer } = agent.connection
    const initialized = peer.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    const created = peer.request(methods.agent.session.new, { cwd: '/', mcpServers: [] })
    const [init, { sessionId }] = await Promise.all([initialized, created])
    expect(init.protocolVersion).toBe(1)
    expect((await prompt(agent, sessionId, 'hi')).stopReason).toBe('end_turn')
    expect(messageText(agent.updates, sessionId)).toBe('echo: hi')
  })

  it('serves raw back-to-back lines: initialize, session/new', async () => {
    const { file } = await appFolder(appYaml())
    const agent = start(file)
    agent.writeRaw([
      '{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":1}}',
      '{"jsonrpc":"2.0","id":"n","method":"session/new","params":{"cwd":"/","mcpServers":[]}}',
      '',
    ].join('\n'))
    await until(() => (lines(agent).length >= 2 ? true : undefined), 'two responses')
    const byId = new Map(lines(agent).map((message) => [message.id, message]))
    expect(byId.get('i')).toHaveProperty('result')
    expect(byId.get('n')?.result?.sessionId).toEqual(expect.any(String))
  })

  it('answers a request with a wrong jsonrpc or a non-string method with its own id', async () => {
    const { file } = await appFolder(appYaml())
    const agent = start(file)
    agent.writeRaw('{"jsonrpc":"1.0","id":7,"method":"initialize","params":{"protocolVersion":1}}\n')
    agent.writeRaw('{"jsonrpc":"2.0","id":"m","method":42}\n')
    agent.writeRaw('{"id":"none","method":"initialize"}\n')
    await until(() => (lines(agent).length >= 3 ? true : undefined), 'three responses')
    const byId = new Map(lines(agent).map((message) => [message.id, message]))
    expect(byId.get(7)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, data: { reason: '"jsonrpc" must be "2.0", got "1.0"' } } })
    expect(byId.get('m')).toMatchObject({ jsonrpc: '2.0', error: { code: -32600, data: { reason: '"method" must be a string, got 42' } } })
    expect(byId.get('none')).toMatchObject({ error: { code: -32600, data: { reason: '"jsonrpc" must be "2.0", got nothing' } } })
    expect(byId.has(null)).toBe(false)
    // and the connection still works
    const init = await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1 })
    expect(init.protocolVersion).toBe(1)
  })
})

describe('command line', () => {
  it('--version prints the version on stdout instead of reading a file by that name', async () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    for (const flag of ['--version', '-V']) {
      const app = spawnApp([flag])
      expect(await app.exited).toBe(0)
      expect(app.stdout()).toBe(`dsh-acp-demo ${version}\n`)
      expect(app.stderr()).toBe('')
    }
  })

  it('--help lists every option', async () => {
    const app = spawnApp(['--help'])
    expect(await app.exited).toBe(0)
    for (const part of ['config.yml', '-h, --help', '-V, --version', 'DSH_LOG_LEVEL', 'XDG_STATE_HOME']) expect(app.stderr()).toContain(part)
  })
})
