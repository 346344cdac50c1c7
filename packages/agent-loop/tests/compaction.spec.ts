import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { COMPACTION_INSTRUCTION, SUMMARY_PREFIX } from 'dsh-core'
import type { GenerateOptions } from 'dsh-llm'
import type { SessionEvent } from 'dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import { rebuildLastRequest, type AgentUpdate } from '../src/index.ts'
import { setup, tempRoot, toolPlugin, types } from './setup.ts'

/** The message that stands for a compacted history: dsh-core's summary prefix, then the summary. */
const summaryMessage = (summary: string) => ({ role: 'user', text: SUMMARY_PREFIX + summary })

const disposers: (() => Promise<void>)[] = []
afterEach(async () => { for (const dispose of disposers.splice(0)) await dispose() })

/** A spine whose scripted-echo model has a small window, recording every request it receives. */
async function small(contextWindow = 700, options: { root?: string; script?: object; loop?: object; persona?: string } = {}) {
  const root = options.root ?? await tempRoot()
  let script: string | undefined
  if (options.script) await writeFile(script = join(root, 'script.json'), JSON.stringify(options.script))
  const spine = await setup({
    root,
    ...options.persona && { persona: options.persona },
    scripted: { models: [{ id: 'scripted-echo', contextWindow }], ...script && { script } },
    loop: { compactAt: 0.5, ...options.loop },
  })
  disposers.push(spine.dispose)
  await spine.ctx.plugin(toolPlugin('notes', ['read_notes']))
  const requests: GenerateOptions[] = []
  spine.ctx.on('llm/request', (request) => { requests.push(request) })
  const updates: AgentUpdate[] = []
  spine.ctx.on('agent/update', (_agent, update) => { updates.push(update) })
  const agent = await spine.ctx.agentLoop.createAgent({ id: 'long' })
  return { ...spine, agent, requests, updates }
}

const compactions = (events: readonly SessionEvent[]) =>
  events.filter((event) => event.type === 'context/compaction')
const isCompaction = (request: GenerateOptions) => request.messages.at(-1)?.role === 'user'
  && (request.messages.at(-1) as { text: string }).text === COMPACTION_INSTRUCTION
const line = (turn: number) => `turn ${turn}: please keep this sentence about the pagination bug in mind for later. `.repeat(2)

describe('auto-compaction', () => {
  it('sends the main request plus one instruction, logs the summary, and sends the summary before the new message after', async () => {
    const { agent, requests } = await small()
    let turn = 0
    while (compactions(agent.session.events()).length === 0 && turn < 30) {
      const result = await agent.prompt(line(++turn))
      expect(result.reason).toBe('done')
    }
    const [event] = compactions(agent.session.events())
    expect(event?.data).toMatchObject({ turn, step: 1, reason: 'auto' })
    const index = requests.findIndex(isCompaction)
    const [before, compaction, after] = [requests[index - 1]!, requests[index]!, requests[index + 1]!]
    // Same header, same snapshot, and the conversation of the request that would have gone: the last one plus the new message.
    expect(compaction.system).toBe(before.system)
    expect(JSON.stringify(compaction.tools)).toBe(JSON.stringify(before.tools))
    expect(compaction.toolHistory).toBe(before.toolHistory)
    expect(JSON.stringify(compaction.messages)).toBe(JSON.stringify([
      ...before.messages, { role: 'assistant', text: `echo: ${line(turn - 1)}`, toolCalls: [] }, { role: 'user', text: line(turn) },
      { role: 'user', text: COMPACTION_INSTRUCTION },
    ]))
    const asked = agent.session.events().find((e) => e.type === 'user/message' && e.data.turn === turn)!
    expect(event!.data.throughSeq).toBe(asked.seq - 1)
    expect(event!.data.summary).toMatch(/^\d+ messages compacted\.\n- user asked: turn 1:/)
    expect(event!.data.usage?.inputTokens).toBeGreaterThan(0)
    expect(after.system).toBe(before.system)
    expect([...after.messages]).toEqual([summaryMessage(event!.data.summary), { role: 'user', text: line(turn) }])
    expect(types(agent.session.events().slice(-7))).toEqual([
      'turn/start', 'user/message', 'step/start', 'context/compaction', 'assistant/message', 'step/end', 'turn/end',
    ])
  })

  it('rides the cached header when a tool arrives at the compacting step, and logs the change after it', async () => {
    const { ctx, agent, requests } = await small(1000, {
      persona: 'Keep this long persona in mind. '.repeat(70), script: { responses: [{ text: 'first' }, { text: 'summary' }, { text: 'second' }] },
    })
    await agent.prompt('one')
    await ctx.plugin(toolPlugin('search', ['grep']))
    const start = agent.session.lastSeq
    expect(await agent.prompt('two')).toMatchObject({ reason: 'done', text: 'second' })
    expect(requests.map((request) => request.tools.map((tool) => tool.name).join())).toEqual(['read_notes', 'read_notes', 'grep,read_notes'])
    expect(isCompaction(requests[1]!)).toBe(true)
    expect(requests[1]!.toolHistory).toBe(requests[0]!.toolHistory)
    expect(types(agent.session.events().slice(start))).toEqual([
      'turn/start', 'user/message', 'step/start', 'context/compaction', 'request/header', 'developer/message', 'assistant/message', 'step/end', 'turn/end',
    ])
  })

  it('compacts again as the session grows, each summary carrying the last requests forward', async () => {
    const { agent, updates } = await small()
    for (let turn = 1; turn <= 24; turn++) expect((await agent.prompt(line(turn))).reason).toBe('done')
    const events = compactions(agent.session.events())
    expect(events.length).toBeGreaterThanOrEqual(2)
    expect(events[1]!.data.summary).toContain('- user asked: turn')
    expect(updates.filter((update) => update.type === 'compaction' && !update.error)).toHaveLength(events.length)
    // The window is never exceeded: the provider's count of each main request stays under it.
    const counted = agent.session.events().flatMap((e) => e.type === 'assistant/message' ? [e.data.usage!.inputTokens] : [])
    expect(Math.max(...counted)).toBeLessThan(700)
  })

  it('is what rebuildLastRequest rebuilds, and what a reopened session sends', async () => {
    const root = await tempRoot()
    const first = await small(700, { root })
    for (let turn = 1; compactions(first.agent.session.events()).length < 1; turn++) await first.agent.prompt(line(turn))
    await first.agent.prompt('one more')
    const sent = first.agent.lastRequest!
    const rebuilt = rebuildLastRequest(first.agent.session.events())!
    expect(rebuilt.messages[0]).toEqual(summaryMessage(compactions(first.agent.session.events())[0]!.data.summary))
    expect(JSON.stringify(rebuilt)).toBe(JSON.stringify({ model: sent.model, system: sent.system, tools: sent.tools, messages: sent.messages, toolHistory: sent.toolHistory, previousResponseId: sent.previousResponseId }))
    const messages = first.agent.session.messages()
    await first.dispose()
    disposers.length = 0

    // A larger window this time, so nothing compacts again and the request shows what the log restored.
    const second = await small(100_000, { root })
    await second.agent.prompt('after the restart')
    const resumed = second.agent.lastRequest!
    expect(resumed.system).toBe(sent.system)
    expect(JSON.stringify(resumed.tools)).toBe(JSON.stringify(sent.tools))
    expect(JSON.stringify(resumed.messages)).toBe(JSON.stringify([
      ...messages, { role: 'user', text: 'after the restart' },
    ]))
  })
})

describe('a failed compaction', () => {
  const big = { inputTokens: 600, outputTokens: 10 }
  const full = { inputTokens: 990, outputTokens: 20 }

  it.each([
    ['an HTTP-like error', { error: 'upstream exploded' }, /compaction request failed: .*upstream exploded/],
    ['an empty summary', { text: '  ' }, /empty summary/],
    ['a cut-off summary', { text: 'half a', stopReason: 'max_tokens' }, /cut off/],
    ['a timeout', { text: 'too late', delayMs: 300 }, /timed out after 50 ms/],
  ])('%s logs nothing; the step goes on while the request fits', async (_name, failure, message) => {
    const { agent, updates } = await small(1000, {
      script: { responses: [{ text: 'first', usage: big }, failure, { text: 'second' }] }, loop: { compactionTimeoutMs: 50 },
    })
    await agent.prompt('one')
    const result = await agent.prompt('two')
    expect(result).toMatchObject({ reason: 'done', text: 'second' })
    expect(compactions(agent.session.events())).toEqual([])
    const failed = updates.find((update) => update.type === 'compaction')
    expect(failed).toMatchObject({ type: 'compaction', turn: 2, step: 1, reason: 'auto', error: expect.stringMatching(message) })
  })

  it('fails the turn with one line when the request would not fit, balanced, and the next turn retries', async () => {
    const { agent } = await small(1000, {
      script: { responses: [{ text: 'first', usage: full }, { error: 'refused: prompt too long' }, { text: 'summary of one' }, { text: 'third' }] },
    })
    await agent.prompt('one')
    const start = agent.session.lastSeq
    const failed = await agent.prompt('two')
    expect(failed.reason).toBe('error')
    expect(failed.error).toMatch(/^the next request needs about \d+ tokens, more than the 1000-token context window of "scripted-echo", and compaction failed: the compaction request failed: .*refused: prompt too long$/)
    expect(types(agent.session.events().slice(start))).toEqual(['turn/start', 'user/message', 'step/start', 'user/refused', 'step/end', 'turn/end'])
    const retried = await agent.prompt('three')
    expect(retried).toMatchObject({ reason: 'done', text: 'third' })
    const [event] = compactions(agent.session.events())
    expect(event?.data).toMatchObject({ reason: 'auto', summary: 'summary of one' })
    expect([...agent.lastRequest!.messages]).toEqual([summaryMessage('summary of one'), { role: 'user', text: 'three' }])
  })
})

describe('compact() on demand', () => {
  it('replaces every message so far, and has nothing to do right after', async () => {
    const { agent, updates } = await small(100_000)
    await agent.prompt('/call read_notes {"text":"a"}')
    await agent.prompt('what now')
    const outcome = await agent.compact()
    expect(outcome).toMatchObject({ ok: true, throughSeq: agent.session.lastSeq - 1 })
    const [event] = compactions(agent.session.events())
    expect(event?.data).toMatchObject({ turn: 2, step: 0, reason: 'manual' })
    expect(event!.data.summary).toContain('- tools called: read_notes ×1')
    expect(agent.session.messages().toArray()).toEqual([summaryMessage(event!.data.summary)])
    expect(updates.at(-1)).toMatchObject({ type: 'compaction', reason: 'manual', turn: 2, step: 0 })
    expect(await agent.compact()).toEqual({ ok: false, error: 'nothing to compact: no message since the last compaction' })
    const next = await agent.prompt('continue')
    expect(next.reason).toBe('done')
    expect([...agent.lastRequest!.messages]).toEqual([summaryMessage(event!.data.summary), { role: 'user', text: 'continue' }])
  })

  it('refuses while a turn runs, and reports an empty session', async () => {
    const { agent } = await small(100_000)
    expect(await agent.compact()).toEqual({ ok: false, error: 'nothing to compact: no request was made yet' })
    const running = agent.prompt('hello')
    await expect(agent.compact()).rejects.toThrow(/is running a turn; compact after it ends/)
    await running
  })
})

describe('the context window is enforced', () => {
  const balanced = (events: readonly SessionEvent[]) => {
    const count = (type: string) => events.filter((event) => event.type === type).length
    expect(count('turn/end')).toBe(count('turn/start'))
    expect(count('step/end')).toBe(count('step/start'))
  }

  it('measures the first request of a session: one too big for the window fails the turn before any model call', async () => {
    const { agent, requests } = await small(10)
    const result = await agent.prompt('hello')
    expect(result.reason).toBe('error')
    expect(result.error).toMatch(/^the next request needs about \d+ tokens, more than the 10-token context window of "scripted-echo", and there is no earlier history to compact$/)
    expect(requests).toHaveLength(0)
    expect(types(agent.session.events())).toEqual(['turn/start', 'user/message', 'step/start', 'user/refused', 'step/end', 'turn/end'])
    expect(agent.session.events()[3]!.data).toEqual({ turn: 1, messageSeq: 2 })
    expect(agent.session.requestHeader()).toBeUndefined()
  })

  it('never sends a refused message again: the next turn of a fresh session goes on as if it had not been sent', async () => {
    const { agent, requests, ctx } = await small(700)
    const refused = await agent.prompt('y'.repeat(4000))
    expect(refused.error).toMatch(/^the next request needs about \d+ tokens, more than the 700-token context window of "scripted-echo", and there is no earlier history to compact$/)
    expect(agent.session.messages().toArray()).toEqual([])
    const next = await agent.prompt('hello')
    expect(next).toMatchObject({ reason: 'done', text: 'echo: hello' })
    expect(requests).toHaveLength(1)
    expect(JSON.stringify(requests[0]!.messages)).toBe(JSON.stringify([{ role: 'user', text: 'hello' }]))
    // the store's copy reads the same: the refusal is in the log, not only in memory
    const id = agent.session.id
    await ctx.sessions.close(id)
    const reopened = await ctx.sessions.open(id)
    expect(reopened.messages().toArray().map((message) => (message as { text: string }).text)).toEqual(['hello', 'echo: hello'])
    expect(reopened.events().filter((event) => event.type === 'user/refused').map((event) => event.data)).toEqual([{ turn: 1, messageSeq: 2 }])
  })

  it('refuses a message too big even without the earlier history, sending no compaction, and never sends it later', async () => {
    const { agent, requests } = await small(700, { script: { responses: [{ text: 'ok' }, { text: 'answered' }] } })
    expect((await agent.prompt('hello')).reason).toBe('done')
    const refused = await agent.prompt('y'.repeat(4000))
    expect(refused.error).toMatch(/^the next request needs about \d+ tokens, more than the 700-token context window of "scripted-echo", even without the earlier history$/)
    expect(requests).toHaveLength(1)
    const next = await agent.prompt('again')
    expect(next).toMatchObject({ reason: 'done', text: 'answered' })
    expect(requests).toHaveLength(2)
    expect(JSON.stringify(requests)).not.toContain('yyyy')
    expect(requests[1]!.messages.at(-1)).toEqual({ role: 'user', text: 'again' })
    expect(compactions(agent.session.events())).toEqual([])
    balanced(agent.session.events())
  })

  it('fails a turn whose request still passes the window after a successful compaction, and sends nothing more', async () => {
    const { agent, requests } = await small(700, { script: { responses: [{ text: 'ok' }, { text: 'a long summary. '.repeat(400) }, { text: 'never sent' }] } })
    expect((await agent.prompt('hello')).reason).toBe('done')
    const result = await agent.prompt('y'.repeat(1200))
    expect(compactions(agent.session.events())).toHaveLength(1)
    expect(result.reason).toBe('error')
    expect(result.error).toMatch(/^the next request needs about \d+ tokens, more than the 700-token context window of "scripted-echo", even with the history compacted$/)
    expect(Number(/about (\d+) tokens/.exec(result.error!)![1])).toBeGreaterThan(1600)
    expect(requests).toHaveLength(2)
    expect(isCompaction(requests[1]!)).toBe(true)
    balanced(agent.session.events())
  })
})
