import { afterEach, describe, expect, it } from 'vitest'
import { methods } from '@agentclientprotocol/sdk'
import { appFolder, drive, prompt, rejection, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

const YAML = [
  '- { id: app, name: dsh-acp-demo, config: { persistenceRoot: ./sessions } }',
  '- { id: tools, name: dsh-tools-static, config: { tools: [{ name: early, description: E. }, { name: late, description: L., delayMs: 1500 }] } }',
].join('\n') + '\n'

async function lateToolSession(capabilities: Record<string, unknown>, env: Record<string, string>) {
  const { file } = await appFolder(YAML)
  // the first prompt goes out at a short startup timeout, so the late tool joins mid-session
  const agent = drive([file], { env: { DSH_STARTUP_TIMEOUT_MS: '300', ...env } })
  running.push(agent)
  await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: capabilities })
  const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] })
  await prompt(agent, sessionId, 'one')
  await new Promise((resolve) => setTimeout(resolve, 1700))
  await prompt(agent, sessionId, 'two')
  return agent.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update as { sessionUpdate: string; [key: string]: unknown })
}

describe('tool changes over ACP', () => {
  it('sends a notice session/update, before the answer, to a client that presents notices', async () => {
    const updates = await lateToolSession({ session: { notices: {} } }, { LANG: 'en_US.UTF-8', LC_ALL: '', LC_MESSAGES: '' })
    const notices = updates.filter((update) => update.sessionUpdate === 'notice')
    expect(notices).toEqual([{ sessionUpdate: 'notice', severity: 'info', title: 'Tool added: late' }])
    const at = updates.indexOf(notices[0]!)
    expect(updates.slice(at + 1).some((update) => update.sessionUpdate === 'agent_message_chunk')).toBe(true)
  })

  it('writes it in Chinese under a Chinese locale', async () => {
    const updates = await lateToolSession({ session: { notices: {} } }, { LANG: 'zh_CN.UTF-8', LC_ALL: '', LC_MESSAGES: '' })
    expect(updates.filter((update) => update.sessionUpdate === 'notice').map((update) => update.title)).toEqual(['新增工具：late'])
  })

  it('takes session.notices: true, and notices at the top of the capabilities, as advertising notices', async () => {
    // the SDK's own parsing drops both: the door reads the capabilities as the client sent them
    for (const capabilities of [{ session: { notices: true } }, { notices: {} }]) {
      const updates = await lateToolSession(capabilities, { LANG: 'en_US.UTF-8', LC_ALL: '', LC_MESSAGES: '' })
      expect(updates.filter((update) => update.sessionUpdate === 'notice').map((update) => update.title)).toEqual(['Tool added: late'])
    }
  })

  it('sends none for session.notices: false, and refuses initialize for a notices value it cannot read, naming it and the forms accepted', async () => {
    expect((await lateToolSession({ session: { notices: false } }, {})).some((update) => update.sessionUpdate === 'notice')).toBe(false)
    const { file } = await appFolder(YAML)
    const agent = drive([file])
    running.push(agent)
    const error = await rejection(agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: { session: { notices: 'yes' } } as never }))
    expect(error.code).toBe(-32602)
    expect(error.message).toBe('initialize: clientCapabilities.session.notices is "yes"; to present notices send clientCapabilities.session.notices: {} '
      + '(true is accepted too), to decline leave it out or send false or null')
  })

  it('sends no notice to a client that did not advertise session.notices, as ACP requires', async () => {
    const updates = await lateToolSession({}, {})
    expect(updates.some((update) => update.sessionUpdate === 'notice')).toBe(false)
  })
})
