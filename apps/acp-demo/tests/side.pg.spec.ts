import { methods, type ListSessionsResponse } from '@agentclientprotocol/sdk'
import { throwawaySchema } from 'dsh-session-postgres/testing'
import { afterEach, describe, expect, inject, it, onTestFinished } from 'vitest'
import { appFolder, appYaml, drive, prompt, type Driven } from './harness.ts'

const URL_ENV = 'DSH_TEST_ACP_PG_URL'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

describe('side sessions on a PostgreSQL fleet store', () => {
  it('session/list carries a child\'s parent link in _meta.dsh and titles it by its question', { timeout: 60_000 }, async () => {
    const { schema, drop } = throwawaySchema(inject('pgUrl'))
    onTestFinished(drop)
    const { file } = await appFolder(appYaml(['sessionStore: external']) + `- { id: sessions, name: dsh-session-postgres, config: { urlEnv: ${URL_ENV}, schema: ${schema} } }\n`)
    const driven = drive([file], { env: { [URL_ENV]: inject('pgUrl'), DSH_LOG_LEVEL: 'warn' } })
    running.push(driven)
    await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    const { sessionId } = await driven.connection.agent.request(methods.agent.session.new, { cwd: '/work/pg', mcpServers: [] })
    await prompt(driven, sessionId, 'the main question')
    expect(await prompt(driven, sessionId, '/side a question aside')).toEqual({ stopReason: 'end_turn' })

    const { sessions } = await driven.connection.agent.request(methods.agent.session.list, {}) as ListSessionsResponse
    const parent = sessions.find((info) => info.sessionId === sessionId)!
    const child = sessions.find((info) => info.sessionId === `${sessionId}~1`)!
    expect(parent.title).toBe('the main question')
    expect(parent._meta).not.toHaveProperty('dsh.parent')
    expect(child.title).toBe('side: a question aside')
    expect(child._meta).toMatchObject({ dsh: { parent: sessionId, mode: 'side', description: 'a question aside' } })
    expect(await driven.stop()).toBe(0)
  })
})
