import { afterEach, describe, expect, it } from 'vitest'
import { startEmulator } from '../src/emulator/index.ts'
import { LOOKBACK_BLOCKS } from 'dsh-llm'

const MODEL = 'rules-model'
const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const emulator of open.splice(0)) await emulator.close()
})

/** An emulator on a clock the test moves, and a poster that returns the status and the ledger entry. */
async function emulator() {
  let clock = 1_000_000
  const served = await startEmulator([MODEL], { now: () => clock })
  open.push(served)
  const post = async (path: string, body: object) => {
    const response = await fetch(`${served.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test', 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: MODEL, stream: true, ...body }),
    })
    await response.text()
    return { status: response.status, entry: response.ok ? served.ledger.at(-1)! : undefined }
  }
  return { served, post, wait: (ms: number) => { clock += ms } }
}

const long = (label: string, words = 700) => `${label}: ${'lorem ipsum '.repeat(words)}`
const mark = { cache_control: { type: 'ephemeral' } }
const question = (index: number) => `question ${index} ${'detail '.repeat(20)}`
const turns = (count: number) => Array.from({ length: count }, (_, index) => [
  { role: 'user', content: question(index) },
  { role: 'assistant', content: [{ type: 'text', text: `answer ${index}` }] },
]).flat()

/** A Messages body: a long system prompt, `count` exchanges and the next question; markers where asked. */
function messagesBody(count: number, marks: { system?: boolean; last?: boolean; at?: number[] } = {}) {
  const history: any[] = turns(count).map((message, index) => marks.at?.includes(index)
    ? { role: message.role, content: [{ type: 'text', text: typeof message.content === 'string' ? message.content : message.content[0]!.text, ...mark }] }
    : message)
  const last = { type: 'text', text: question(count), ...marks.last && mark }
  return {
    max_tokens: 100,
    system: [{ type: 'text', text: long('system'), ...marks.system && mark }],
    messages: [...history, { role: 'user', content: [last] }],
  }
}

const chatBody = (system: string, count: number, extra: object = {}) => ({
  stream_options: { include_usage: true },
  messages: [{ role: 'system', content: system }, ...turns(count).map((message) => ({ role: message.role, content: typeof message.content === 'string' ? message.content : message.content[0]!.text })), { role: 'user', content: 'now' }],
  ...extra,
})

describe('the emulator follows Anthropic\'s rules on /anthropic/v1/messages', () => {
  it('caches nothing without breakpoints, however often the same prefix comes', async () => {
    const { post } = await emulator()
    for (let round = 0; round < 3; round++) expect((await post('/anthropic/v1/messages', messagesBody(2))).entry!.cachedTokens).toBe(0)
  })

  it('reads the prefix up to an earlier breakpoint that a breakpoint of the request reaches, and reports the write', async () => {
    const { post } = await emulator()
    const first = (await post('/anthropic/v1/messages', messagesBody(2, { system: true, last: true }))).entry!
    expect(first.cachedTokens).toBe(0)
    expect(first.marks).toBe(2)
    const second = (await post('/anthropic/v1/messages', messagesBody(3, { system: true, last: true }))).entry!
    // the whole first prompt up to its last breakpoint (its newest message) is read
    expect(second.cachedTokens).toBeGreaterThan(first.promptTokens - 10)
    expect(second.cachedTokens).toBeLessThanOrEqual(first.promptTokens)
  })

  it('finds an entry only within 20 blocks before a breakpoint', async () => {
    const { post } = await emulator()
    await post('/anthropic/v1/messages', messagesBody(2, { last: true }))
    // 2 exchanges later the old entry is 4 blocks back; 12 later it is 24 blocks back
    const near = (await post('/anthropic/v1/messages', messagesBody(4, { last: true }))).entry!
    expect(near.cachedTokens).toBeGreaterThan(0)
    const { post: again } = await emulator()
    await again('/anthropic/v1/messages', messagesBody(2, { last: true }))
    const far = (await again('/anthropic/v1/messages', messagesBody(2 + LOOKBACK_BLOCKS / 2 + 2, { last: true }))).entry!
    expect(far.cachedTokens).toBe(0)
    // a breakpoint in between bridges the gap
    const { post: bridged } = await emulator()
    await bridged('/anthropic/v1/messages', messagesBody(2, { last: true }))
    expect((await bridged('/anthropic/v1/messages', messagesBody(14, { last: true, at: [15] }))).entry!.cachedTokens).toBeGreaterThan(0)
  })

  it('writes nothing shorter than the minimum, and forgets an entry idle past its TTL', async () => {
    const { post, wait } = await emulator()
    const short = { max_tokens: 10, system: [{ type: 'text', text: 'short', ...mark }], messages: [{ role: 'user', content: 'hi' }] }
    await post('/anthropic/v1/messages', short)
    expect((await post('/anthropic/v1/messages', short)).entry!.cachedTokens).toBe(0)
    await post('/anthropic/v1/messages', messagesBody(1, { system: true }))
    wait(4 * 60_000)
    expect((await post('/anthropic/v1/messages', messagesBody(1, { system: true }))).entry!.cachedTokens).toBeGreaterThan(1024)
    // the hit refreshed the entry: 4 more minutes are still inside the TTL; 6 are not
    wait(4 * 60_000)
    expect((await post('/anthropic/v1/messages', messagesBody(1, { system: true }))).entry!.cachedTokens).toBeGreaterThan(1024)
    wait(5 * 60_000 + 1)
    expect((await post('/anthropic/v1/messages', messagesBody(1, { system: true }))).entry!.cachedTokens).toBe(0)
  })

  it.each([
    ['a fifth breakpoint', messagesBody(4, { system: true, last: true, at: [0, 2, 4] }), 'at most 4'],
    ['a 1h breakpoint after a 5m one', { ...messagesBody(1, { system: true }), messages: [{ role: 'user', content: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '1h' } }] }] }, '1h cache_control after a 5m one'],
    ['DeepSeek\'s tool_removal block (a name, no tool_reference)', { ...messagesBody(1), messages: [{ role: 'user', content: 'x' }, { role: 'system', content: [{ type: 'tool_removal', name: 'a' }] }] }, 'may carry only tool_addition / tool_removal blocks naming a tool_reference or tool_definition'],
    ['a bad cache_control', { ...messagesBody(0), system: [{ type: 'text', text: 'x', cache_control: { type: 'persistent' } }] }, 'is not { type: \'ephemeral\''],
  ])('refuses %s with HTTP 400 and records the problem', async (_, body, message) => {
    const { served, post } = await emulator()
    expect((await post('/anthropic/v1/messages', body)).status).toBe(400)
    expect(served.problems.join('\n')).toContain(message)
  })

  it('refuses cache_control on DeepSeek\'s Messages route, whose documentation has none', async () => {
    const { served, post } = await emulator()
    expect((await post('/v1/messages', messagesBody(1, { system: true }))).status).toBe(400)
    expect(served.problems.join('\n')).toContain('system is not a string')
    expect((await post('/v1/messages', { ...messagesBody(1), system: 'plain', messages: [{ role: 'user', content: [{ type: 'text', text: 'x', ...mark }] }] })).status).toBe(400)
    expect(served.problems.join('\n')).toContain('cache_control on the deepseek route')
  })
})

describe('the emulator follows the automatic caches\' rules', () => {
  it('OpenAI: nothing under 1,024 tokens, then hits in 128-token steps', async () => {
    const { post } = await emulator()
    await post('/openai/v1/chat/completions', chatBody('short system', 1))
    expect((await post('/openai/v1/chat/completions', chatBody('short system', 1))).entry!.cachedTokens).toBe(0)
    await post('/openai/v1/chat/completions', chatBody(long('system'), 1))
    const hit = (await post('/openai/v1/chat/completions', chatBody(long('system'), 2))).entry!
    expect(hit.cachedTokens).toBeGreaterThanOrEqual(1024)
    expect(hit.cachedTokens % 128).toBe(0)
  })

  it('OpenAI: another prompt_cache_key routes to another machine, whose cache does not hold the prefix', async () => {
    const { post } = await emulator()
    await post('/openai/v1/chat/completions', chatBody(long('system'), 1, { prompt_cache_key: 'a' }))
    expect((await post('/openai/v1/chat/completions', chatBody(long('system'), 2, { prompt_cache_key: 'a' }))).entry!.cachedTokens).toBeGreaterThan(1024)
    expect((await post('/openai/v1/chat/completions', chatBody(long('system'), 3, { prompt_cache_key: 'b' }))).entry!.cachedTokens).toBe(0)
  })

  it('DeepSeek: whole 64-token units', async () => {
    const { post } = await emulator()
    await post('/deepseek/v1/chat/completions', chatBody(long('system'), 1))
    const hit = (await post('/deepseek/v1/chat/completions', chatBody(long('system'), 2))).entry!
    expect(hit.cachedTokens).toBeGreaterThan(1024)
    expect(hit.cachedTokens % 64).toBe(0)
  })

  it.each([
    ['/v1/chat/completions', { prompt_cache_key: 'k' }, 'prompt_cache_key on a generic route'],
    ['/deepseek/v1/chat/completions', { prompt_cache_retention: '24h' }, 'prompt_cache_retention on a deepseek route'],
    ['/openai/v1/chat/completions', { prompt_cache_retention: '1w' }, 'prompt_cache_retention "1w" is not in_memory or 24h'],
  ])('refuses OpenAI\'s fields where they do not belong or with a wrong value (%s %o)', async (path, extra, message) => {
    const { served, post } = await emulator()
    expect((await post(path, chatBody('s', 0, extra))).status).toBe(400)
    expect(served.problems.join('\n')).toContain(message)
  })
})

describe('the emulator follows DashScope\'s explicit cache on /dashscope/v1/chat/completions', () => {
  const marked = (count: number) => ({
    stream_options: { include_usage: true },
    messages: [
      { role: 'system', content: [{ type: 'text', text: long('system'), ...mark }] },
      ...turns(count).map((message) => ({ role: message.role, content: typeof message.content === 'string' ? message.content : message.content[0]!.text })),
      { role: 'user', content: [{ type: 'text', text: `now ${count}`, ...mark }] },
    ],
  })

  it('reads at its markers; without them the implicit cache applies, from 256 tokens', async () => {
    const { post } = await emulator()
    // about 190 tokens: two whole 64-token blocks, under the implicit cache's minimum
    await post('/dashscope/v1/chat/completions', chatBody(long('system', 60), 0))
    expect((await post('/dashscope/v1/chat/completions', chatBody(long('system', 60), 0))).entry!.cachedTokens).toBe(0)
    await post('/dashscope/v1/chat/completions', chatBody(long('system'), 1))
    expect((await post('/dashscope/v1/chat/completions', chatBody(long('system'), 2))).entry!.cachedTokens).toBeGreaterThan(1024)
    const first = (await post('/dashscope/v1/chat/completions', marked(1))).entry!
    const second = (await post('/dashscope/v1/chat/completions', marked(2))).entry!
    expect(first.marks).toBe(2)
    expect(second.cachedTokens).toBeGreaterThan(1024)
  })

  it('refuses cache_control on another Chat Completions route', async () => {
    const { served, post } = await emulator()
    expect((await post('/openai/v1/chat/completions', marked(1))).status).toBe(400)
    expect(served.problems.join('\n')).toContain('cache_control on the openai route')
  })
})
