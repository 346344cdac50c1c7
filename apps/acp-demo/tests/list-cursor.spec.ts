import { afterEach, describe, expect, it } from 'vitest'
import { methods, type ListSessionsResponse } from '@agentclientprotocol/sdk'
import { appFolder, appYaml, drive, prompt, rejection, type Driven } from './harness.ts'

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

const list = async (driven: Driven, params: { cursor?: string } = {}) =>
  await driven.connection.agent.request(methods.agent.session.list, params) as ListSessionsResponse
const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const NOT_GIVEN = /^session\/list: cursor ".*" is not one this agent gave out/

describe('session/list cursors (the real bin, the SDK client)', () => {
  it('refuses a well-formed cursor this agent did not give out with -32602, and one from an earlier process of it; its own hold', async () => {
    const { file } = await appFolder(appYaml(['sessionListPageSize: 1']))
    const first = await start(file)
    for (const text of ['one', 'two', 'three']) {
      const { sessionId } = await first.connection.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] })
      await prompt(first, sessionId, text)
    }
    const page1 = await list(first)
    expect(page1.sessions).toHaveLength(1)
    const given = page1.nextCursor!
    const page2 = await list(first, { cursor: given })
    expect(page2.sessions).toHaveLength(1)
    // a cursor it gave out holds after the session it names has changed (newer now, out of that place)
    await prompt(first, page1.sessions[0]!.sessionId, 'one more')
    expect((await list(first, { cursor: given })).sessions.map((session) => session.sessionId)).toEqual(page2.sessions.map((session) => session.sessionId))

    // forged: the shape of a cursor, built by the client (a far future, a path, not a date at all)
    const sessionId = page1.sessions[0]!.sessionId
    for (const cursor of [
      forged(['2099-01-01T00:00:00.000Z', '../../etc/passwd']),
      forged(['not a date', 'x']),
      forged([page1.sessions[0]!.updatedAt, sessionId]),
      `${given}x`,
      given.slice(1),
      '',
    ]) {
      const refused = await rejection(list(first, { cursor }))
      expect(refused, cursor).toMatchObject({ code: -32602, message: expect.stringMatching(NOT_GIVEN), data: { code: 'INVALID_PARAMS', cursor } })
    }
    expect(await first.stop()).toBe(0)

    // cursors live as long as the process that gave them out
    const second = await start(file)
    const stale = await rejection(list(second, { cursor: given }))
    expect(stale).toMatchObject({ code: -32602, message: expect.stringMatching(NOT_GIVEN) })
    expect((await list(second)).sessions).toHaveLength(1)
  })
})
