import { afterEach, describe, expect, it } from 'vitest'
import { startEmulator } from 'dsh-llm-testing/emulator'
import { expectEveryTurnFailed, run, sessionEvents, writeApp } from './setup.ts'

const emulators: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close()
})

describe('the context window through the bin', () => {
  it('a request bigger than contextWindow fails each turn with one line, before any model call, with a balanced log', async () => {
    const { file, sessions } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: tiny } }',
      '- { id: tiny, name: dsh-llm-scripted, config: { models: [{ id: tiny, contextWindow: 10 }] } }',
    ].join('\n') + '\n')
    const exit = await run([file], 'hello\nagain\n')
    expectEveryTurnFailed(exit, 2, /^error: the next request needs about \d+ tokens, more than the 10-token context window of "tiny", and there is no earlier history to compact$/)
    const events = await sessionEvents(sessions)
    const types = events.map((event) => event.type)
    expect(types.filter((type) => type === 'turn/end')).toHaveLength(2)
    expect(types.filter((type) => type === 'step/start').length).toBe(types.filter((type) => type === 'step/end').length)
    expect(types).not.toContain('request/header')
    expect(types).not.toContain('assistant/message')
  })
})

describe('a message refused for the window is not sent again', () => {
  const app = () => writeApp([
    '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: small } }',
    '- { id: small, name: dsh-llm-scripted, config: { models: [{ id: small, contextWindow: 2000 }] } }',
  ].join('\n') + '\n')
  const oversized = 'x'.repeat(20_000)

  it('piped, as the first message: one line for it, and the turns after it are answered', async () => {
    const { file, sessions } = await app()
    const exit = await run([file], `${oversized}\nhello\n`)
    expect(exit.stdout).toBe('echo: hello\n')
    expect(exit.stderr).toMatch(/^error: the next request needs about \d+ tokens, more than the 2000-token context window of "small", and there is no earlier history to compact\n1 of 2 turns failed\n$/)
    const events = await sessionEvents(sessions)
    expect(events.filter((event) => event.type === 'user/refused').map((event) => event.data)).toEqual([{ turn: 1, messageSeq: 2 }])
  })

  it('piped after history, and after --continue: the next turns are answered, and no request carries it', async () => {
    const { file, sessions } = await app()
    const exit = await run([file], `hello\n${oversized}\nagain\n`)
    expect(exit.stdout).toBe('echo: hello\necho: again\n')
    expect(exit.stderr).toMatch(/^error: the next request needs about \d+ tokens, more than the 2000-token context window of "small", even without the earlier history\n1 of 3 turns failed\n$/)
    const continued = await run([file, '--continue'], 'third\n')
    expect(continued).toMatchObject({ code: 0, stdout: 'echo: third\n' })
    const events = await sessionEvents(sessions)
    expect(events.filter((event) => event.type === 'turn/end').map((event) => event.data.reason)).toEqual(['done', 'error', 'done', 'done'])
    expect(events.filter((event) => event.type === 'user/refused')).toHaveLength(1)
  })
})

describe('a message refused for the window, with an HTTP model', () => {
  it('the request after it, on the wire, does not carry it', async () => {
    const emulator = await startEmulator(['remote'])
    emulators.push(emulator)
    const { file } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: remote } }',
      `- { id: provider, name: dsh-llm-openai, config: { baseURL: "${emulator.origin}/deepseek/v1", apiKeyEnv: CACHE_TEST_KEY, models: [{ id: remote, provider: deepseek, contextWindow: 3000 }] } }`,
    ].join('\n') + '\n')
    const oversized = 'x'.repeat(20_000)
    const exit = await run([file], `${oversized}\nhello\n`, { env: { CACHE_TEST_KEY: 'sk-loopback', DSH_LOG_LEVEL: 'error' } })
    expect(exit.stdout).toBe('echo: hello\n')
    expect(exit.stderr).toMatch(/^error: the next request needs about \d+ tokens, more than the 3000-token context window of "remote", and there is no earlier history to compact\n1 of 2 turns failed\n$/)
    expect(emulator.problems).toEqual([])
    expect(emulator.received).toHaveLength(1)
    expect(emulator.received[0]!.body).not.toContain('xxxx')
  })
})
