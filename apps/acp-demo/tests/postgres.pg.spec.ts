import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { methods } from '@agentclientprotocol/sdk'
import { storedEvents, throwawaySchema } from 'dsh-session-postgres/testing'
import { afterEach, describe, expect, inject, it, onTestFinished } from 'vitest'
import { appFolder, appYaml, checkBalanced, drive, messageText, openSession, prompt, rejection, type Driven } from './harness.ts'

const URL_ENV = 'DSH_TEST_ACP_PG_URL'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

/** The app entry on `sessionStore: external` and a dsh-session-postgres entry on `schema`, plus `extraTool` if given. */
function pgYaml(schema: string, extraTool = ''): string {
  return appYaml(['sessionStore: external'], extraTool) + [
    '- id: sessions',
    '  name: dsh-session-postgres',
    `  config: { urlEnv: ${URL_ENV}, schema: ${schema} }`,
  ].join('\n') + '\n'
}

function start(file: string): Driven {
  // explicit environment: no default session folder is involved, and no info lines
  const driven = drive([file], { env: { [URL_ENV]: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' } })
  running.push(driven)
  return driven
}

async function initialize(driven: Driven) {
  return driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
}

function freshSchema(): string {
  const { schema, drop } = throwawaySchema(inject('pgUrl'))
  onTestFinished(drop)
  return schema
}

// two or three app processes per case, each booting on a shared machine
describe('session/load from a PostgreSQL session store', { timeout: 90_000 }, () => {
  it('A writes a session and exits; B loads it (replayed), continues it, and its next changed header says resume', async () => {
    const schema = freshSchema()
    const { dir, file } = await appFolder(pgYaml(schema))
    const a = start(file)
    const sessionId = await openSession(a)
    await prompt(a, sessionId, 'hello')
    await prompt(a, sessionId, '/call lookup {"word":"cat"}')
    expect(await a.stop()).toBe(0)

    // B runs the same app with one tool more, so the resumed session's first header differs
    const { file: withTool } = await appFolder(pgYaml(schema, '      - { name: added, description: Added later. }'))
    const b = start(withTool)
    expect((await initialize(b)).agentCapabilities?.loadSession).toBe(true)
    expect(await b.connection.agent.request(methods.agent.session.load, { sessionId, cwd: dir, mcpServers: [] })).toEqual({})
    const replayed = b.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as { sessionUpdate: string; [key: string]: any })
    expect(replayed.map((update) => update.sessionUpdate)).toEqual([
      'user_message_chunk', 'agent_message_chunk',
      'user_message_chunk', 'tool_call', 'tool_call_update', 'agent_message_chunk',
    ])
    expect(replayed[0]!.content).toEqual({ type: 'text', text: 'hello' })
    expect(replayed[4]).toMatchObject({ status: 'completed', rawOutput: 'a small furry animal' })

    const before = b.updates.length
    expect(await prompt(b, sessionId, 'again')).toMatchObject({ stopReason: 'end_turn' })
    expect(messageText(b.updates.slice(before), sessionId)).toBe('echo: again')
    expect(await b.stop()).toBe(0)

    const log = await storedEvents(inject('pgUrl'), schema, sessionId)
    checkBalanced(log)
    expect(log.map((event) => event.seq)).toEqual(log.map((_, index) => index + 1))
    expect(log.filter((event) => event.type === 'turn/start').map((event) => event.data.turn)).toEqual([1, 2, 3])
    expect(log.filter((event) => event.type === 'request/header').map((event) => event.data.reason)).toEqual(['initial', 'resume'])
    expect(existsSync(join(dir, 'sessions'))).toBe(false)
  })

  it('refuses an id that is not stored with one clear message, and a session another process holds with BUSY', async () => {
    const schema = freshSchema()
    const { file } = await appFolder(pgYaml(schema))
    const holder = start(file)
    const sessionId = await openSession(holder)
    await prompt(holder, sessionId, 'hello')

    const other = start(file)
    await initialize(other)
    const unknown = await rejection(other.connection.agent.request(methods.agent.session.load, { sessionId: 'nope', cwd: '/', mcpServers: [] }))
    expect(unknown).toMatchObject({ code: -32002, message: 'cannot load session "nope": it is not stored' })

    const busy = await rejection(other.connection.agent.request(methods.agent.session.load, { sessionId, cwd: '/', mcpServers: [] }))
    expect(busy).toMatchObject({ code: -32600, data: { code: 'BUSY', sessionId } })
    expect(busy.message).toMatch(new RegExp(`^cannot load session "${sessionId}": session "${sessionId}" is busy: another process is writing it: process .*schema "${schema}"`))
    expect(busy.message).not.toContain(new URL(inject('pgUrl')).password)
    expect(busy.message.split('\n')).toHaveLength(1)

    // the refusing process keeps serving; once the holder is gone, the session loads there
    expect(await holder.stop()).toBe(0)
    await other.connection.agent.request(methods.agent.session.load, { sessionId, cwd: '/', mcpServers: [] })
    expect(await prompt(other, sessionId, 'mine now')).toMatchObject({ stopReason: 'end_turn' })
    expect(await other.stop()).toBe(0)
    const log = await storedEvents(inject('pgUrl'), schema, sessionId)
    expect(log.filter((event) => event.type === 'user/message').map((event) => event.data.text)).toEqual(['hello', 'mine now'])
  })
})
