import { afterEach, describe, expect, it } from 'vitest'
import { startEmulator } from 'dsh-llm-testing/emulator'
import { run, writeApp } from './setup.ts'

const emulators: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close()
})

const env = { CACHE_TEST_KEY: 'sk-loopback', DSH_LOG_LEVEL: 'error' }
const PERSONA = 'You are a careful assistant for long-running sessions. '.repeat(100)

/** One provider profile on the emulator: the adapter package and its entry. */
const PROFILES: [string, string, (origin: string) => object][] = [
  ['anthropic', 'dsh-llm-anthropic', (origin) => ({ baseURL: `${origin}/anthropic`, models: [{ id: 'fork-model', provider: 'anthropic', cacheTtl: '1h' }] })],
  ['openai', 'dsh-llm-openai', (origin) => ({ baseURL: `${origin}/openai/v1`, models: [{ id: 'fork-model', provider: 'openai' }] })],
  ['deepseek', 'dsh-llm-openai', (origin) => ({ baseURL: `${origin}/deepseek/v1`, models: [{ id: 'fork-model', provider: 'deepseek' }] })],
  ['dashscope', 'dsh-llm-openai', (origin) => ({ baseURL: `${origin}/dashscope/v1`, models: [{ id: 'fork-model', provider: 'dashscope' }] })],
  ['generic', 'dsh-llm-openai', (origin) => ({ baseURL: `${origin}/v1`, models: [{ id: 'fork-model' }] })],
]

/**
 * The body through the end of its `count`-th message, as sent, the markers on it included; the newest
 * message's own marker (the one that moves to the newest message of every next request) is compared as the
 * message without it, and how it is written (one text part, or a string) does not count.
 */
function through(raw: string, count: number): { bytes: string; last: unknown } {
  const body = JSON.parse(raw)
  expect(JSON.stringify(body)).toBe(raw)
  const start = raw.indexOf('"messages":[') + '"messages":['.length
  const before = body.messages.slice(0, count - 1).map((message: unknown) => JSON.stringify(message)).join(',')
  return { bytes: raw.slice(0, start) + before, last: unmarked(body.messages[count - 1]) }
}

function unmarked(message: any): unknown {
  if (!Array.isArray(message.content)) return message
  const content = message.content.map(({ cache_control: _, ...block }: any) => block)
  return { ...message, content: content.length === 1 && content[0].type === 'text' ? content[0].text : content }
}

describe.each(PROFILES)('a fork on the %s profile', (profile, adapter, entry) => {
  it('sends the parent\'s last request up to its history end, byte for byte, then the instruction; the child and the parent\'s next request read the cache', { timeout: 60_000 }, async () => {
    const emulator = await startEmulator(['fork-model'])
    emulators.push(emulator)
    const { file } = await writeApp([
      `- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, scripted: false, model: fork-model, persona: ${JSON.stringify(PERSONA)} } }`,
      `- { id: provider, name: ${adapter}, config: ${JSON.stringify({ ...entry(emulator.origin), apiKeyEnv: 'CACHE_TEST_KEY' })} }`,
    ].join('\n'))
    const result = await run([file], 'a first question about the project and its tests\n/call agent {"instruction":"list the open questions","description":"a lister"}\n', { env })
    expect(result).toMatchObject({ code: 0, stdout: 'echo: a first question about the project and its tests\ntool agent returned: echo: list the open questions\n' })
    expect(emulator.problems).toEqual([])
    const [, parentLast, childFirst, parentNext] = emulator.received.map((request) => request.body)
    expect(emulator.received).toHaveLength(4)
    const count = JSON.parse(parentLast!).messages.length
    const parent = through(parentLast!, count)
    const child = through(childFirst!, count)
    expect(child.bytes).toBe(parent.bytes)
    expect(child.last).toEqual(parent.last)
    const childBody = JSON.parse(childFirst!)
    expect(unmarked(childBody.messages.at(-1))).toMatchObject({ role: 'user', content: 'list the open questions' })
    expect(childBody.messages).toHaveLength(count + 1)
    // the same routing key and lifetime: they are in the compared bytes, and present where the profile sends them
    if (profile === 'openai') expect(childBody.prompt_cache_key).toBe(JSON.parse(parentLast!).prompt_cache_key)
    if (profile === 'anthropic') expect(childFirst).toContain('"cache_control":{"type":"ephemeral","ttl":"1h"}')
    // the parent's next request starts with its own last one as well: the child changed nothing in it
    expect(through(parentNext!, count).bytes).toBe(parent.bytes)
    const [, last, forked, next] = emulator.ledger
    expect(forked!.cachedTokens / forked!.promptTokens).toBeGreaterThanOrEqual(0.95)
    expect(next!.cachedTokens).toBeGreaterThanOrEqual(last!.promptTokens * 0.95)
  })
})
