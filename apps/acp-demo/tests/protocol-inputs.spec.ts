import { afterEach, describe, expect, it } from 'vitest'
import { methods, type ListSessionsResponse } from '@agentclientprotocol/sdk'
import { appFolder, appYaml, drive, rejection, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

describe('protocol inputs the SDK lets through (the real bin, the SDK client)', () => {
  it('session/new refuses a cwd that is not an absolute path with -32602 naming it, and stores nothing', async () => {
    const { file } = await appFolder(appYaml())
    const driven = drive([file], { env: { DSH_LOG_LEVEL: 'error' } })
    running.push(driven)
    await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    for (const cwd of ['relative/dir', '', '../up']) {
      const refused = await rejection(driven.connection.agent.request(methods.agent.session.new, { cwd, mcpServers: [] }))
      expect(refused).toMatchObject({
        code: -32602,
        message: `session/new: cwd ${JSON.stringify(cwd)} is not an absolute path; ACP asks for the client's working directory as one, e.g. "/home/me/project"`,
        data: { code: 'INVALID_PARAMS', cwd },
      })
    }
    const listed = await driven.connection.agent.request(methods.agent.session.list, {}) as ListSessionsResponse
    expect(listed.sessions).toEqual([])
    // an absolute one is served
    expect((await driven.connection.agent.request(methods.agent.session.new, { cwd: '/srv/project', mcpServers: [] })).sessionId).toEqual(expect.any(String))
  })
})
