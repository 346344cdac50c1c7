import { afterEach, describe, expect, it } from 'vitest'
import { methods } from '@agentclientprotocol/sdk'
import { appFolder, appYaml, checkBalanced, drive, messageText, openSession, prompt, rejection, sessionEvents, type Driven } from './harness.ts'

const running: Driven[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
})

function start(file: string): Driven {
  const driven = drive([file], { env: { DSH_LOG_LEVEL: 'error' } })
  running.push(driven)
  return driven
}

/** The app with a scripted model of a 2000-token window. */
const smallWindow = () => appFolder(appYaml(['model: small'],
  '- { id: small, name: dsh-llm-scripted, config: { models: [{ id: small, contextWindow: 2000 }] } }'))

const oversized = 'x'.repeat(20_000)
const windowError = /^the next request needs about \d+ tokens, more than the 2000-token context window of "small", /

describe('a prompt refused for the context window', () => {
  it('is -32603 naming the window, and the prompts after it are answered, without it', async () => {
    const { dir, file } = await smallWindow()
    const agent = start(file)
    const sessionId = await openSession(agent)
    const error = await rejection(prompt(agent, sessionId, oversized))
    expect(error.code).toBe(-32603)
    expect(error.message).toMatch(windowError)
    expect(await prompt(agent, sessionId, 'hello')).toMatchObject({ stopReason: 'end_turn' })
    expect(messageText(agent.updates, sessionId)).toBe('echo: hello')
    expect(await prompt(agent, sessionId, 'again')).toMatchObject({ stopReason: 'end_turn' })
    expect(await agent.stop()).toBe(0)
    const events = await sessionEvents(dir, sessionId)
    checkBalanced(events)
    expect(events.filter((event) => event.type === 'user/refused').map((event) => event.data.turn)).toEqual([1])
  })

  it('after session/load: the loaded session answers, without the refused prompt', async () => {
    const { dir, file } = await smallWindow()
    const first = start(file)
    const sessionId = await openSession(first)
    await prompt(first, sessionId, 'hello')
    expect((await rejection(prompt(first, sessionId, oversized))).message).toMatch(windowError)
    expect(await first.stop()).toBe(0)

    const second = start(file)
    await second.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: '/', mcpServers: [] })
    const replayed = second.updates.length
    expect(await prompt(second, sessionId, 'after the load')).toMatchObject({ stopReason: 'end_turn' })
    expect(messageText(second.updates.slice(replayed), sessionId)).toBe('echo: after the load')
    expect(await second.stop()).toBe(0)
    const events = await sessionEvents(dir, sessionId)
    checkBalanced(events)
    expect(events.filter((event) => event.type === 'turn/end').map((event) => event.data.reason)).toEqual(['done', 'error', 'done'])
  })
})
