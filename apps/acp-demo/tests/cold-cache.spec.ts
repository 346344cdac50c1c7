import { afterEach, describe, expect, it } from 'vitest'
import { methods } from '@agentclientprotocol/sdk'
import { appFolder, drive, prompt, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

const YAML = [
  '- { id: app, name: dsh-acp-demo, config: { persistenceRoot: ./sessions } }',
  // the offline model's route states no TTL; the detector is told the cache lives 1 s
  '- { id: prompt-cache, name: dsh-cache-break-detector, config: { ttlMs: 1000 } }',
].join('\n') + '\n'

/** One prompt, then a second of idling; the session/update notifications of that session. */
async function idleSession(capabilities: Record<string, unknown>, env: Record<string, string> = {}) {
  const { file } = await appFolder(YAML)
  const agent = drive([file], { env: { LANG: 'en_US.UTF-8', LC_ALL: '', LC_MESSAGES: '', ...env } })
  running.push(agent)
  await agent.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: capabilities })
  const { sessionId } = await agent.connection.agent.request(methods.agent.session.new, { cwd: '/', mcpServers: [] })
  await prompt(agent, sessionId, 'one')
  const before = agent.updates.length
  // the notice comes about a second after the request; wait for it (bounded), then a little longer for a second one
  for (const deadline = Date.now() + 8000; Date.now() < deadline && !agent.updates.slice(before).some((n) => (n.update as { sessionUpdate: string }).sessionUpdate === 'notice');) {
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const after = agent.updates.slice(before).filter((n) => n.sessionId === sessionId).map((n) => n.update as { sessionUpdate: string; [key: string]: unknown })
  return { agent, sessionId, after }
}

describe('a cold prompt cache over ACP', () => {
  it('sends one notice session/update when the session sat idle past the TTL', { timeout: 20_000 }, async () => {
    const { agent, sessionId, after } = await idleSession({ session: { notices: {} } })
    expect(after).toHaveLength(1)
    expect(after[0]).toMatchObject({ sessionUpdate: 'notice', severity: 'info' })
    expect(after[0]!.title).toMatch(/^Prompt cache cold: idle [\d.]+ s, past scripted-echo's 1 s cache TTL; the next turn re-sends about \d+ tokens uncached$/)
    // the session still answers
    expect((await prompt(agent, sessionId, 'two')).stopReason).toBe('end_turn')
  })

  it('writes it in Chinese under a Chinese locale', { timeout: 20_000 }, async () => {
    const { after } = await idleSession({ session: { notices: {} } }, { LANG: 'zh_CN.UTF-8' })
    expect(after.map((update) => update.title)).toEqual([expect.stringMatching(/^提示缓存已过期：空闲 [\d.]+ 秒，超过 scripted-echo 的缓存有效期（1 秒）/)])
  })

  it('sends nothing to a client that did not advertise session.notices', { timeout: 20_000 }, async () => {
    const { after } = await idleSession({})
    expect(after).toEqual([])
  })
})
