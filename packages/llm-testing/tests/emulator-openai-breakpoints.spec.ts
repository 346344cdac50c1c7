import { afterEach, describe, expect, it } from 'vitest'
import { startEmulator } from '../src/emulator/index.ts'
import { OPENAI_LOOKBACK_BREAKPOINTS } from '../src/emulator/openai-breakpoints.ts'

const MODEL = 'gpt-5.6'
const PATH = '/openai/v1/chat/completions'
const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const emulator of open.splice(0)) await emulator.close()
})

/** An emulator on a clock the test moves; `post` returns the status, the ledger entry and the reported usage. */
async function emulator() {
  let clock = 1_000_000
  const served = await startEmulator([MODEL], { now: () => clock })
  open.push(served)
  const post = async (body: object) => {
    const response = await fetch(`${served.origin}${PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: MODEL, stream: true, stream_options: { include_usage: true }, ...body }),
    })
    const text = await response.text()
    const usage = response.ok ? text.split('\n').filter((line) => line.startsWith('data: {')).map((line) => JSON.parse(line.slice(6))).find((chunk) => chunk.usage)?.usage : undefined
    return { status: response.status, entry: response.ok ? served.ledger.at(-1)! : undefined, usage }
  }
  return { served, post, wait: (ms: number) => { clock += ms } }
}

const EXPLICIT = { prompt_cache_options: { mode: 'explicit' } }
const SYSTEM = `system: ${'lorem ipsum '.repeat(700)}`
const breakpoint = (text: string, ttl?: string) => [{ type: 'text', text, prompt_cache_breakpoint: { mode: 'explicit', ...ttl && { ttl } } }]
const question = (index: number) => `question ${index} ${'detail '.repeat(20)}`

/** A conversation of `count` exchanges and the next question, with breakpoints on the system message and the newest message (as DSH places them). */
function conversation(count: number, marks: { system?: boolean; newest?: boolean } = { system: true, newest: true }) {
  const history = Array.from({ length: count }, (_, index) => [
    { role: 'user', content: question(index) },
    { role: 'assistant', content: `answer ${index}` },
  ]).flat()
  return {
    messages: [
      { role: 'system', content: marks.system ? breakpoint(SYSTEM) : SYSTEM },
      ...history,
      { role: 'user', content: marks.newest ? breakpoint(question(count)) : question(count) },
    ],
    ...EXPLICIT,
  }
}

describe('the emulator follows OpenAI\'s explicit breakpoints on /openai (prompt_cache_options.mode explicit)', () => {
  it('writes only up to a breakpoint, reads the previous request\'s rolling breakpoint, and reports writes as cache_write_tokens', async () => {
    const { post } = await emulator()
    const first = await post(conversation(0))
    expect(first.entry).toMatchObject({ cachedTokens: 0, marks: 2 })
    expect(first.usage.prompt_tokens_details.cache_write_tokens).toBe(first.entry!.writtenTokens)
    expect(first.entry!.writtenTokens).toBeGreaterThan(1024)
    const second = await post(conversation(1))
    // the whole first request's prompt up to its newest message is read; only the new exchange is written
    expect(second.entry!.cachedTokens).toBe(first.entry!.writtenTokens)
    expect(second.usage.prompt_tokens_details).toMatchObject({ cached_tokens: second.entry!.cachedTokens, cache_write_tokens: second.entry!.writtenTokens })
    expect(second.entry!.writtenTokens).toBeLessThan(100)
  })

  it('caches nothing without breakpoints in mode explicit, and only the marked prefix with one', async () => {
    const { post } = await emulator()
    await post(conversation(1, {}))
    const bare = await post(conversation(1, {}))
    expect(bare.entry).toMatchObject({ cachedTokens: 0, writtenTokens: 0 })
    await post(conversation(1, { system: true }))
    const systemOnly = await post(conversation(2, { system: true }))
    // the system message's end, not the whole shared prefix the automatic cache would find
    expect(systemOnly.entry!.cachedTokens).toBe(Math.floor((SYSTEM.length + '<|system|>\n'.length + '\n<|end|>\n'.length) / 4))
  })

  it('matches among the conversation\'s latest 80 breakpoints only', async () => {
    const { post } = await emulator()
    const early = { messages: [{ role: 'system', content: breakpoint(SYSTEM) }, { role: 'user', content: 'hello' }], ...EXPLICIT }
    await post(early)
    // 80 later breakpoints on other prefixes push the early one out
    for (let index = 0; index < OPENAI_LOOKBACK_BREAKPOINTS / 4; index++) {
      const other = (part: number) => ({ role: 'user', content: breakpoint(`other ${index}.${part} ${'text '.repeat(1000)}`) })
      await post({ messages: [other(0), { role: 'assistant', content: 'a' }, other(1), { role: 'assistant', content: 'b' }, other(2), { role: 'assistant', content: 'c' }, other(3)], ...EXPLICIT })
    }
    expect((await post(early)).entry!.cachedTokens).toBe(0)
    // one short of 80 and it is still found
    const { post: again } = await emulator()
    await again(early)
    for (let index = 0; index < OPENAI_LOOKBACK_BREAKPOINTS - 1; index++) {
      await again({ messages: [{ role: 'user', content: breakpoint(`other ${index} ${'text '.repeat(1000)}`) }], ...EXPLICIT })
    }
    expect((await again(early)).entry!.cachedTokens).toBeGreaterThan(1024)
  })

  it('forgets a breakpoint idle past its 30-minute lifetime, and keeps a 12-hour one', async () => {
    const { post, wait } = await emulator()
    await post(conversation(0))
    wait(31 * 60_000)
    expect((await post(conversation(0))).entry!.cachedTokens).toBe(0)
    const long = { messages: [{ role: 'system', content: breakpoint(SYSTEM, '12h') }, { role: 'user', content: 'hi' }], ...EXPLICIT }
    await post(long)
    wait(11 * 60 * 60_000)
    expect((await post(long)).entry!.cachedTokens).toBeGreaterThan(1024)
  })

  it.each([
    ['five breakpoints', { messages: [1, 2, 3, 4, 5].flatMap((index) => [{ role: 'user', content: breakpoint(`q${index}`) }, { role: 'assistant', content: 'a' }]).slice(0, -1), ...EXPLICIT }, '5 prompt_cache_breakpoint parts; at most 4 are written per request'],
    ['retention beside the options', { messages: [{ role: 'user', content: 'q' }], prompt_cache_retention: '24h', ...EXPLICIT }, 'prompt_cache_retention beside prompt_cache_options; send prompt_cache_options.ttl only'],
    ['a ttl the API does not take', { messages: [{ role: 'user', content: 'q' }], prompt_cache_options: { mode: 'explicit', ttl: '24h' } }, 'prompt_cache_options {"mode":"explicit","ttl":"24h"} is not'],
    ['a breakpoint of another mode', { messages: [{ role: 'user', content: [{ type: 'text', text: 'q', prompt_cache_breakpoint: { mode: 'auto' } }] }], ...EXPLICIT }, 'prompt_cache_breakpoint {"mode":"auto"} is not'],
  ])('answers HTTP 400 to %s', async (_, body, message) => {
    const { served, post } = await emulator()
    expect((await post(body)).status).toBe(400)
    expect(served.problems.join('\n')).toContain(message)
  })

  it('refuses OpenAI\'s breakpoint fields on the other Chat Completions routes', async () => {
    const { served } = await emulator()
    for (const path of ['/v1/chat/completions', '/dashscope/v1/chat/completions']) {
      const response = await fetch(`${served.origin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
        body: JSON.stringify({ model: MODEL, stream: true, stream_options: { include_usage: true }, ...conversation(0) }),
      })
      expect(response.status).toBe(400)
    }
    expect(served.problems.join('\n')).toContain('prompt_cache_options on a generic route')
    expect(served.problems.join('\n')).toContain('prompt_cache_breakpoint on the dashscope route')
  })
})

describe('the ideal under OpenAI\'s explicit breakpoints', () => {
  it('ends at a message block: a prefix that ends among the tools (a tool joined) is nothing it can serve', async () => {
    const { post } = await emulator()
    const tool = (name: string) => ({ type: 'function', function: { name, description: `the ${name} tool ${'text '.repeat(1200)}`, parameters: { type: 'object' } } })
    const withTools = (names: string[], count: number, options: object = EXPLICIT) => ({ ...conversation(count), tools: names.map(tool), ...options })
    await post(withTools(['a'], 0))
    const next = (await post(withTools(['a'], 1))).entry!
    expect(next.idealTokens).toBe(next.cachedTokens)
    expect(next.idealTokens).toBeGreaterThan(1024)
    const joined = (await post(withTools(['a', 'b'], 2))).entry!
    expect(joined).toMatchObject({ idealTokens: 0, cachedTokens: 0 })
    // the automatic cache serves the tools they share
    await post(withTools(['a'], 0, { prompt_cache_options: undefined }))
    expect((await post(withTools(['a', 'b'], 1, { prompt_cache_options: undefined }))).entry!.idealTokens).toBeGreaterThan(1024)
  })
})
