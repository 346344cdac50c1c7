import { writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { methods } from '@agentclientprotocol/sdk'
import { emulatedAppFile, startEmulator } from 'dsh-bench/testing'
import { appFolder, drive, messageText, openSession, prompt, sessionEvents, type Driven } from './harness.ts'

const running: Driven[] = []
const emulators: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const driven of running.splice(0)) if (driven.child.exitCode === null) await driven.stop()
  for (const emulator of emulators.splice(0)) await emulator.close()
})

function start(file: string): Driven {
  const driven = drive([file], { env: { CACHE_TEST_KEY: 'sk-loopback', DSH_LOG_LEVEL: 'error' } })
  running.push(driven)
  return driven
}

/** The app on the benchmark's prefix-caching provider (DeepSeek's route: a later tool joins in the history). */
function cachedApp(origin: string, tools: string[]): string {
  return emulatedAppFile({ app: 'dsh-acp-demo', origin, model: 'cache-model', tools })
}

describe('session/load keeps the provider\'s cache', () => {
  it('the first request after session/load hits the cached prefix, with reason resume when the header changed', async () => {
    const emulator = await startEmulator(['cache-model'])
    emulators.push(emulator)
    const { dir, file } = await appFolder(cachedApp(emulator.origin, ['alpha', 'beta']))
    const first = start(file)
    const sessionId = await openSession(first)
    await prompt(first, sessionId, 'a first question about the project')
    await prompt(first, sessionId, 'and a second one')
    expect(await first.stop()).toBe(0)
    expect(emulator.ledger.map((entry) => entry.cachedTokens > 0)).toEqual([false, true])

    // a new process with one tool more: the header differs, the prefix the provider cached does not
    await writeFile(file, cachedApp(emulator.origin, ['alpha', 'beta', 'gamma']))
    const second = start(file)
    await second.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
    await second.connection.agent.request(methods.agent.session.load, { sessionId, cwd: dir, mcpServers: [] })
    const before = second.updates.length
    expect((await prompt(second, sessionId, 'a third after the reload')).stopReason).toBe('end_turn')
    expect(messageText(second.updates.slice(before), sessionId)).toBe('echo: a third after the reload')
    expect(await second.stop()).toBe(0)

    const resumed = emulator.ledger[2]!
    expect(resumed.added).toEqual(['gamma'])
    expect(resumed.cachedTokens).toBeGreaterThan(0)
    expect(resumed.cachedTokens).toBe(resumed.idealTokens)
    // everything the previous request sent is a prefix of this one (less its last, partial block)
    expect(resumed.cachedTokens).toBeGreaterThan(emulator.ledger[1]!.promptTokens - 64)
    const headers = (await sessionEvents(dir, sessionId)).filter((event) => event.type === 'request/header')
    expect(headers.map((event) => event.data.reason)).toEqual(['initial', 'resume'])
    expect(emulator.problems).toEqual([])
  })
})
