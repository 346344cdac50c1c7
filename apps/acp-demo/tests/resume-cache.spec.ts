import { writeFile } from 'node:fs/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { methods } from '@agentclientprotocol/sdk'
import { emulatedAppFile, startEmulator } from 'dsh-llm-testing/emulator'
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

/** A new process: initialize, session/load, one prompt (its echo checked), then the client leaves. */
async function loadAndAsk(file: string, sessionId: string, cwd: string, text: string): Promise<void> {
  const driven = start(file)
  await driven.connection.agent.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} })
  await driven.connection.agent.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] })
  const before = driven.updates.length
  expect((await prompt(driven, sessionId, text)).stopReason).toBe('end_turn')
  expect(messageText(driven.updates.slice(before), sessionId)).toBe(`echo: ${text}`)
  expect(await driven.stop()).toBe(0)
}

describe('session/load keeps the provider\'s cache', () => {
  it('the first request after session/load hits the cached prefix: unchanged, and with a tool more (reason resume)', { timeout: 60_000 }, async () => {
    const emulator = await startEmulator(['cache-model'])
    emulators.push(emulator)
    const { dir, file } = await appFolder(cachedApp(emulator.origin, ['alpha', 'beta']))
    const first = start(file)
    const sessionId = await openSession(first)
    await prompt(first, sessionId, 'a first question about the project')
    expect(await first.stop()).toBe(0)
    const reasons = async () => (await sessionEvents(dir, sessionId)).filter((event) => event.type === 'request/header').map((event) => event.data.reason)
    // every whole block of the previous request is read from cache (all but its last, partial block)
    const hitsWholePrefix = (index: number) => {
      const entry = emulator.ledger[index]!
      expect(entry.cachedTokens).toBe(entry.idealTokens)
      expect(entry.cachedTokens).toBeGreaterThan(emulator.ledger[index - 1]!.promptTokens - 64)
    }
    expect(emulator.ledger[0]!.cachedTokens).toBe(0)

    // a new process, the same app: the prefix read back from the log is the one the provider cached
    await loadAndAsk(file, sessionId, dir, 'a second question after the reload')
    hitsWholePrefix(1)
    expect(await reasons()).toEqual(['initial'])

    // a new process with one tool more: the header differs and is logged as resume; the cached prefix holds
    await writeFile(file, cachedApp(emulator.origin, ['alpha', 'beta', 'gamma']))
    await loadAndAsk(file, sessionId, dir, 'a third after another reload')
    expect(emulator.ledger[2]!.added).toEqual(['gamma'])
    hitsWholePrefix(2)
    expect(await reasons()).toEqual(['initial', 'resume'])
    expect(emulator.problems).toEqual([])
  })
})
