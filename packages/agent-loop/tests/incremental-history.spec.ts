import fc from 'fast-check'
import { SUMMARY_PREFIX, baseOf, type ChatMessage, type ReadonlyList } from 'dsh-core'
import { projectToolUpdates, type GenerateOptions, type ProjectedMessage } from 'dsh-llm'
import { echoReply, estimateUsage } from 'dsh-llm-scripted'
import { Session } from 'dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import { setup, tempRoot, toolPlugin } from './setup.ts'

/** The message that stands for a compacted history: dsh-core's summary prefix, then the summary. */
const summaryMessage = (summary: string) => ({ role: 'user', text: SUMMARY_PREFIX + summary })

// The history each step sees extends the last one, and readers (projection, the scripted model's echo
// and estimate) carry their results forward. A compaction rebuilds the history: these tests check that
// nothing is carried across it.

const disposers: (() => Promise<void>)[] = []
afterEach(async () => { for (const dispose of disposers.splice(0)) await dispose() })

/** A plain, unfrozen copy: the readers compute it from scratch, with nothing remembered. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T

function request(messages: ReadonlyList<ChatMessage>): GenerateOptions {
  return { model: 'scripted-echo', system: '', tools: [], messages } as unknown as GenerateOptions
}

/** What the readers derive from a history, as the scripted model would on one step. */
function readings(messages: ReadonlyList<ChatMessage>) {
  const projected = projectToolUpdates(request(messages), 'none').messages
  return { projected: [...projected] as ProjectedMessage[], echo: echoReply(projected), usage: estimateUsage({ messages: projected }, 'x') }
}

/** The session's history rebuilt by a new session from the same events, read once. */
function replayed(session: Session): readonly ChatMessage[] {
  const fresh = new Session('replay')
  for (const event of session.events()) fresh.append(event.type, event.data)
  return fresh.messages().toArray()
}

describe('incremental history across a compaction', () => {
  it('a compaction between two steps publishes a fresh list, and projection, echo and estimate match a computation from scratch', () => {
    const session = new Session('s')
    session.append('user/message', { turn: 1, text: 'first' })
    session.append('assistant/message', { turn: 1, step: 1, text: 'echo: first', toolCalls: [] })
    session.append('user/message', { turn: 2, text: 'second' })
    const before = session.messages()
    const warm = readings(before)
    expect(warm.echo.text).toBe('echo: second')

    session.append('assistant/message', { turn: 2, step: 1, text: 'echo: second', toolCalls: [] })
    session.append('context/compaction', { turn: 3, step: 0, reason: 'manual', summary: 'two greetings', throughSeq: session.lastSeq })
    session.append('user/message', { turn: 3, text: '/call read_notes {}' })
    const after = session.messages()

    expect(after.toArray()).toEqual([summaryMessage('two greetings'), { role: 'user', text: '/call read_notes {}' }])
    expect(baseOf(after)).toBeUndefined()
    const read = readings(after)
    expect(read.projected).toEqual(after.toArray())
    // Two user messages now (the summary and the call): the id counts them, not the four seen before.
    expect(read.echo.toolCalls).toEqual([{ id: 'call_2_1', name: 'read_notes', arguments: {} }])
    expect(read).toEqual(readings(plain(after)))

    session.append('tool/result', { turn: 3, step: 1, id: 'call_2_1', name: 'read_notes', output: 'notes', isError: false })
    const next = session.messages()
    expect(baseOf(next)).toBe(after)
    expect(readings(next)).toEqual(readings(plain(next)))
    expect(readings(next).echo.text).toBe('tool read_notes returned: notes')
  })

  it('at every step of any mix of messages and compactions, the readers agree with a computation from scratch (property)', () => {
    type Step = { kind: 'user' | 'assistant' | 'registry', text: string } | { kind: 'compact', back: number }
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constantFrom('user' as const, 'assistant' as const, 'registry' as const), text: fc.string({ maxLength: 8 }) }),
      fc.record({ kind: fc.constant('compact' as const), back: fc.nat({ max: 4 }) }),
    )
    fc.assert(fc.property(fc.array(fc.array(step, { minLength: 1, maxLength: 4 }), { maxLength: 10 }), (steps) => {
      const session = new Session('s')
      // Seq 1: the header that tool-registry messages refer to.
      session.append('request/header', { turn: 0, step: 1, reason: 'initial', header: { model: 'm', system: 's', tools: [] } })
      let turn = 0
      /** A compaction may only cut after the last one. */
      let lastCut = 0
      for (const batch of steps) {
        turn++
        for (const item of batch) {
          if (item.kind !== 'compact') {
            if (item.kind === 'user') session.append('user/message', { turn, text: item.text || 'hi' })
            else if (item.kind === 'assistant') session.append('assistant/message', { turn, step: 1, text: item.text, toolCalls: [] })
            else session.append('developer/message', { turn, step: 1, source: 'tool-registry', added: ['x'], removed: [], headerSeq: 1 })
          } else if (session.lastSeq > lastCut) {
            const throughSeq = Math.max(lastCut + 1, session.lastSeq - item.back)
            session.append('context/compaction', { turn, step: 0, reason: 'manual', summary: 'so far', throughSeq })
            lastCut = session.lastSeq
          }
        }
        const messages = session.messages()
        expect(messages.toArray()).toEqual(replayed(session))
        const read = readings(messages)
        expect(read.projected).toEqual([...messages].filter((message) => message.role !== 'developer'))
        expect(read).toEqual(readings(plain(messages)))
      }
    }), { numRuns: 150 })
  })

  it('an agent that compacts between two prompts sends the right history and estimates it like a fresh request', async () => {
    const spine = await setup({ root: await tempRoot(), scripted: { models: [{ id: 'scripted-echo', contextWindow: 100_000 }] } })
    disposers.push(spine.dispose)
    await spine.ctx.plugin(toolPlugin('notes', ['read_notes']))
    const agent = await spine.ctx.agentLoop.createAgent({ id: 'long' })
    for (let turn = 1; turn <= 5; turn++) await agent.prompt(`message ${turn}`)
    expect((await agent.compact()).ok).toBe(true)
    const result = await agent.prompt('/call read_notes {"text":"a"}')
    const sent = agent.lastRequest!
    const summary = agent.session.messages().at(0)!
    expect([...sent.messages].slice(0, 2)).toEqual([summary, { role: 'user', text: '/call read_notes {"text":"a"}' }])
    expect(result.reason).toBe('done')
    const usage = agent.session.events().filter((event) => event.type === 'assistant/message').at(-1)!.data
    // The scripted model's input as it builds it (toolUpdate none), from an unfrozen copy of what was sent.
    const copy = plain(sent)
    const projection = projectToolUpdates(copy, 'none')
    const input = { system: copy.system, tools: projection.declarations.map((d) => d.definition), deferred: [], messages: projection.messages }
    expect(usage.usage?.inputTokens).toBe(estimateUsage(input, '').inputTokens)
  })
})
