import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { emulatedAppFile, startEmulator } from 'dsh-llm-testing/emulator'
import { run, writeApp } from './setup.ts'

const emulators: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close()
})

const env = { CACHE_TEST_KEY: 'sk-loopback', DSH_LOG_LEVEL: 'error' }

/** The app on the benchmark's prefix-caching provider (DeepSeek's route: a later tool joins in the history). */
function cachedApp(origin: string, tools: string[]): string {
  return emulatedAppFile({ app: 'dsh-stdio-demo', origin, model: 'cache-model', tools })
}

async function headerReasons(sessions: string): Promise<string[]> {
  const [name] = (await readdir(sessions)).filter((file) => file.endsWith('.jsonl'))
  const events = (await readFile(join(sessions, name!), 'utf8')).trimEnd().split('\n').map((line) => JSON.parse(line))
  return events.filter((event) => event.type === 'request/header').map((event) => event.data.reason)
}

describe('a resumed session keeps the provider\'s cache', () => {
  it('--resume with an unchanged prefix hits the cache on its first request; --continue with a tool more logs reason resume and still hits', { timeout: 60_000 }, async () => {
    const emulator = await startEmulator(['cache-model'])
    emulators.push(emulator)
    const { file, dir, sessions } = await writeApp(cachedApp(emulator.origin, ['alpha', 'beta']))

    expect(await run([file], 'a first question about the project\n', { env })).toMatchObject({ code: 0, stdout: 'echo: a first question about the project\n' })
    const [id] = (await readdir(sessions)).map((name) => name.slice(0, -'.jsonl'.length))
    expect(emulator.ledger[0]!.cachedTokens).toBe(0)

    // a new process: the same prefix, read back from the log, is what the provider has cached
    expect(await run([file, '--resume', id!], 'and a second one\n', { env })).toMatchObject({ code: 0, stdout: 'echo: and a second one\n' })
    const resumed = emulator.ledger[1]!
    expect(resumed.cachedTokens).toBeGreaterThan(0)
    expect(resumed.cachedTokens).toBe(resumed.idealTokens)
    // the whole first request is a prefix of the resumed one (less the part of its last, partial block)
    expect(resumed.cachedTokens).toBeGreaterThan(emulator.ledger[0]!.promptTokens - 64)
    // an unchanged header is not logged again
    expect(await headerReasons(sessions)).toEqual(['initial'])

    const withTool = join(dir, 'with-tool.yml')
    await writeFile(withTool, cachedApp(emulator.origin, ['alpha', 'beta', 'gamma']))
    expect(await run([withTool, '--continue'], 'a third\n', { env })).toMatchObject({ code: 0, stdout: 'echo: a third\n' })
    const continued = emulator.ledger[2]!
    expect(continued.added).toEqual(['gamma'])
    expect(await headerReasons(sessions)).toEqual(['initial', 'resume'])
    expect(continued.cachedTokens).toBe(continued.idealTokens)
    expect(continued.cachedTokens).toBeGreaterThan(resumed.promptTokens - 64)
    expect(emulator.problems).toEqual([])
  })
})
