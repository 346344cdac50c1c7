import fc from 'fast-check'
import { FrozenList, type ChatMessage } from 'dsh-core'
import { summaryMessage } from '../src/messages.ts'
import { describe, expect, it } from 'vitest'
import { Session, type SessionEvent } from '../src/index.ts'

/** The history folded from scratch, the plain way: every event in order, a compaction rebuilding the list. */
function naiveMessages(events: readonly SessionEvent[]): ChatMessage[] {
  let list: { seq: number; message: ChatMessage }[] = []
  for (const event of events) {
    if (event.type === 'user/message') list.push({ seq: event.seq, message: { role: 'user', text: event.data.text } })
    else if (event.type === 'assistant/message') list.push({ seq: event.seq, message: { role: 'assistant', text: event.data.text, toolCalls: event.data.toolCalls } })
    else if (event.type === 'tool/result') {
      const { id, name, output, isError } = event.data
      list.push({ seq: event.seq, message: { role: 'tool', id, name, output, isError } })
    } else if (event.type === 'developer/message') {
      const { source, added, removed, headerSeq } = event.data
      list.push({ seq: event.seq, message: { role: 'developer', source, added, removed, headerSeq } })
    } else if (event.type === 'context/compaction') {
      const cut = event.data.throughSeq
      list = [
        ...list.filter((entry) => entry.seq <= cut && entry.message.role === 'developer'),
        { seq: event.seq, message: summaryMessage(event.data.summary) },
        ...list.filter((entry) => entry.seq > cut),
      ]
    }
  }
  return list.map((entry) => entry.message)
}

type Step =
  | { kind: 'user' | 'assistant' | 'tool' | 'registry' | 'other'; text: string }
  | { kind: 'compact'; back: number }
  | { kind: 'read' }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constantFrom('user' as const, 'assistant' as const, 'tool' as const, 'registry' as const, 'other' as const), text: fc.string({ maxLength: 6 }) }),
  fc.record({ kind: fc.constant('compact' as const), back: fc.nat({ max: 5 }) }),
  fc.constant({ kind: 'read' as const }),
)

describe('messages() as a shared frozen list', () => {
  it('after any sequence of appends, compactions and reads, equals the naive fold, and every list read earlier keeps its messages (property)', () => {
    fc.assert(fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
      const session = new Session('s')
      session.append('request/header', { turn: 1, step: 1, reason: 'initial', header: { model: 'm', system: 's', tools: [] } })
      const held: { list: FrozenList<ChatMessage>; expected: ChatMessage[] }[] = []
      const read = () => {
        const list = session.messages()
        const expected = naiveMessages(session.events())
        expect(list).toBeInstanceOf(FrozenList)
        expect(list.toArray()).toEqual(expected)
        expect(session.messages()).toBe(list)
        held.push({ list, expected })
      }
      let lastCut = 0
      for (const item of steps) {
        if (item.kind === 'read') read()
        else if (item.kind === 'user') session.append('user/message', { turn: 1, text: item.text })
        else if (item.kind === 'assistant') session.append('assistant/message', { turn: 1, step: 1, text: item.text, toolCalls: [] })
        else if (item.kind === 'tool') session.append('tool/result', { turn: 1, step: 1, id: 'c', name: 'read', output: item.text, isError: false })
        else if (item.kind === 'registry') session.append('developer/message', { turn: 1, step: 1, source: 'tool-registry', added: ['x'], removed: [], headerSeq: 1 })
        else if (item.kind === 'other') session.append('step/end', { turn: 1, step: 1 })
        else if (item.kind === 'compact' && session.lastSeq > lastCut) {
          const throughSeq = Math.max(lastCut + 1, session.lastSeq - item.back)
          session.append('context/compaction', { turn: 1, step: 0, reason: 'manual', summary: 'so far', throughSeq })
          lastCut = session.lastSeq
        }
      }
      read()
      for (const { list, expected } of held) {
        expect([...list]).toEqual(expected)
        expect(list.length).toBe(expected.length)
      }
    }), { numRuns: 200 })
  })
})
