import { afterEach, describe, expect, it } from 'vitest'
import { methods, type ListSessionsResponse } from '@agentclientprotocol/sdk'
import { appFolder, appYaml, checkBalanced, drive, prompt, rejection, sessionEvents, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

async function start(file: string): Promise<Driven> {
  const driven = drive([file], { env: { DSH_LOG_LEVEL: 'error' } })
  running.push(driven)
  await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
  return driven
}

const newSession = async (driven: Driven, cwd: string) => (await driven.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] })).sessionId
const list = async (driven: Driven, params: { cursor?: string; cwd?: string } = {}) =>
  await driven.connection.agent.request(methods.agent.session.list, params) as ListSessionsResponse
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('ACP session lifecycle (spec v1)', () => {
  it('advertises list, resume and close in initialize, next to loadSession', async () => {
    const { file } = await appFolder(appYaml())
    const driven = drive([file], { env: { DSH_LOG_LEVEL: 'error' } })
    running.push(driven)
    const init = await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    expect(init.agentCapabilities).toMatchObject({ loadSession: true, sessionCapabilities: { list: {}, resume: {}, close: {} } })
  })

  it('session/list pages the stored sessions newest first, titled by their first prompt; an empty session is listed and loads', async () => {
    const { file } = await appFolder(appYaml(['sessionListPageSize: 2']))
    const first = await start(file)
    const older = await newSession(first, '/work/a')
    await prompt(first, older, 'the first question\nover two lines')
    await pause(20)
    const empty = await newSession(first, '/work/b')
    await pause(20)
    const newer = await newSession(first, '/work/a')
    await prompt(first, newer, 'a newer question')
    expect(await first.stop()).toBe(0)

    // another process, as an editor starts one per window: everything was stored, the empty session too
    const second = await start(file)
    const page1 = await list(second)
    expect(page1.sessions.map((session) => [session.sessionId, session.title, session.cwd])).toEqual([
      [newer, 'a newer question', '/work/a'],
      [empty, undefined, '/work/b'],
    ])
    for (const session of page1.sessions) expect(session.updatedAt).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/)
    expect(page1.nextCursor).toEqual(expect.any(String))
    const page2 = await list(second, { cursor: page1.nextCursor! })
    expect(page2.sessions.map((session) => [session.sessionId, session.title])).toEqual([[older, 'the first question over two lines']])
    expect(page2.nextCursor).toBeUndefined()
    expect((await list(second, { cwd: '/work/b' })).sessions.map((session) => session.sessionId)).toEqual([empty])

    const bad = await rejection(list(second, { cursor: 'not-a-cursor' }))
    expect(bad).toMatchObject({ code: -32602, message: expect.stringMatching(/^session\/list: cursor "not-a-cursor" is not one this agent gave out/) })

    await second.connection.agent.request(methods.agent.session.load, { sessionId: empty, cwd: '/work/b', mcpServers: [] })
    expect(second.updates.filter((n) => n.sessionId === empty && n.update.sessionUpdate !== 'available_commands_update')).toEqual([])
    expect((await prompt(second, empty, 'now a prompt')).stopReason).toBe('end_turn')
  })

  it('session/resume reattaches without replaying; the next prompt goes on with the log', async () => {
    const { dir, file } = await appFolder(appYaml())
    const first = await start(file)
    const sessionId = await newSession(first, '/')
    await prompt(first, sessionId, 'hello')
    expect(await first.stop()).toBe(0)

    const second = await start(file)
    expect(await second.connection.agent.request(methods.agent.session.resume, { sessionId, cwd: '/', mcpServers: [] })).toEqual({})
    await pause(50)
    expect(second.updates.filter((n) => n.update.sessionUpdate === 'user_message_chunk' || n.update.sessionUpdate === 'agent_message_chunk')).toEqual([])
    expect((await prompt(second, sessionId, 'again')).stopReason).toBe('end_turn')
    expect(await rejection(second.connection.agent.request(methods.agent.session.resume, { sessionId: 'nope', cwd: '/' })))
      .toMatchObject({ code: -32002, message: 'cannot load session "nope": it is not stored' })
    expect(await second.stop()).toBe(0)
    const log = await sessionEvents(dir, sessionId)
    expect(log.filter((event) => event.type === 'turn/start').map((event) => event.data.turn)).toEqual([1, 2])
    expect(log.filter((event) => event.type === 'request/header').map((event) => event.data.reason)).toEqual(['initial'])
  })

  it('session/close cancels a running turn, logs its end, and frees the session for a later load', async () => {
    const { dir, file } = await appFolder(appYaml(['model: slow-model'], [
      '- id: slow',
      '  name: dsh-llm-scripted',
      '  config: { models: [slow-model], script: ./script.json }',
    ].join('\n')), { 'script.json': JSON.stringify({ responses: [{ text: 'too late', delayMs: 60_000 }, { text: 'after the close' }] }) })
    const driven = await start(file)
    const sessionId = await newSession(driven, '/')
    const turn = prompt(driven, sessionId, 'a slow question')
    await pause(500)
    expect(await driven.connection.agent.request(methods.agent.session.close, { sessionId })).toEqual({})
    expect((await turn).stopReason).toBe('cancelled')
    const log = await sessionEvents(dir, sessionId)
    checkBalanced(log)
    expect(log.at(-1)).toMatchObject({ type: 'turn/end', data: { reason: 'cancelled' } })
    expect(await rejection(prompt(driven, sessionId, 'still there?'))).toMatchObject({ code: -32002 })
    // closing it again is -32002 on the wire, which the SDK's client reads as a successful close (as ACP advises)
    expect(await driven.connection.agent.request(methods.agent.session.close, { sessionId })).toEqual({})
    expect(driven.stdout()).toMatch(/"error":\{"code":-32002,"message":"unknown session \\"[^"]+\\"; sessions of this connection: \(none; call session\/new first\)"/)
    // closed, the session can be loaded again on the same connection
    await driven.connection.agent.request(methods.agent.session.load, { sessionId, cwd: '/', mcpServers: [] })
    expect((await prompt(driven, sessionId, 'again')).stopReason).toBe('end_turn')
  })
})
