import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { methods } from '@agentclientprotocol/sdk'
import { appFolder, appYaml, drive, openSession, prompt, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

function start(file: string): Driven {
  const driven = drive([file], { env: { DSH_LOG_LEVEL: 'error' } })
  running.push(driven)
  return driven
}

describe('session/load', () => {
  it('replays the stored conversation as session/updates before answering, then serves prompts; the next changed header says resume', async () => {
    const { dir, file } = await appFolder(appYaml())
    const first = start(file)
    const sessionId = await openSession(first)
    await prompt(first, sessionId, 'hello')
    await prompt(first, sessionId, '/call lookup {"word":"cat"}')
    expect(await first.stop()).toBe(0)

    // the same app with one tool more: the resumed session's first header differs, so it is logged as `resume`
    await writeFile(file, appYaml([], '      - { name: added, description: Added later. }'))
    const second = start(file)
    const init = await second.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    expect(init.agentCapabilities?.loadSession).toBe(true)
    await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: '/', mcpServers: [] })
    const replayed = second.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as { sessionUpdate: string; [key: string]: any })
    expect(replayed.map((update) => update.sessionUpdate)).toEqual([
      'user_message_chunk', 'agent_message_chunk',
      'user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk',
    ])
    expect(replayed[0]!.content).toEqual({ type: 'text', text: 'hello' })
    expect(replayed[1]!.content.text).toContain('hello')
    expect(replayed[3]).toMatchObject({ title: 'lookup', rawInput: { word: 'cat' } })
    expect(replayed[4]).toMatchObject({ status: 'completed', rawOutput: 'a small furry animal' })

    await prompt(second, sessionId, 'again')
    expect(await second.stop()).toBe(0)
    const log = (await readFile(join(dir, 'sessions', `${sessionId}.jsonl`), 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line))
    expect(log.filter((event) => event.type === 'turn/start')).toHaveLength(3)
    expect(log.filter((event) => event.type === 'request/header').map((event) => event.data.reason)).toEqual(['initial', 'resume'])
  })

  it('refuses an id that is not stored, naming it', async () => {
    const { file } = await appFolder(appYaml())
    const driven = start(file)
    await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    const error = await driven.connection.agent.request(methods.agent.session.load, { sessionId: 'nope', cwd: '/', mcpServers: [] })
      .then(() => undefined, (e: { code: number; message: string }) => e)
    expect(error).toMatchObject({ code: -32002, message: 'cannot load session "nope": it is not stored' })
  })
})
