import { describe, expect, it } from 'vitest'
import type { RawEvent } from '../../src/view/events.ts'
import { foldTimeline } from '../../src/view/timeline.ts'

const header = { model: 'm', system: 'be terse', tools: [] }

/** A log as the loop writes it: a turn, a turn whose message was refused for the window, a turn after it. */
function log(): RawEvent[] {
  const events: Omit<RawEvent, 'seq' | 'time'>[] = [
    { type: 'turn/start', data: { turn: 1 } },
    { type: 'user/message', data: { turn: 1, text: 'hello' } },
    { type: 'step/start', data: { turn: 1, step: 1 } },
    { type: 'request/header', data: { turn: 1, step: 1, reason: 'initial', header } },
    { type: 'assistant/message', data: { turn: 1, step: 1, text: 'hi', toolCalls: [] } },
    { type: 'step/end', data: { turn: 1, step: 1 } },
    { type: 'turn/end', data: { turn: 1, reason: 'done' } },
    { type: 'turn/start', data: { turn: 2 } },
    { type: 'user/message', data: { turn: 2, text: 'x'.repeat(50_000) } },
    { type: 'step/start', data: { turn: 2, step: 1 } },
    { type: 'user/refused', data: { turn: 2, messageSeq: 9 } },
    { type: 'step/end', data: { turn: 2, step: 1 } },
    { type: 'turn/end', data: { turn: 2, reason: 'error', error: { message: 'too big for the window' } } },
    { type: 'turn/start', data: { turn: 3 } },
    { type: 'user/message', data: { turn: 3, text: 'again' } },
    { type: 'step/start', data: { turn: 3, step: 1 } },
    { type: 'assistant/message', data: { turn: 3, step: 1, text: 'ok', toolCalls: [] } },
    { type: 'step/end', data: { turn: 3, step: 1 } },
    { type: 'turn/end', data: { turn: 3, reason: 'done' } },
  ]
  return events.map((event, index) => ({ seq: index + 1, time: new Date(Date.UTC(2026, 11, 6, 0, 0, index)).toISOString(), ...event }))
}

describe('the timeline of a session with a refused message', () => {
  it('leaves the refused message out of the history of the requests after it', () => {
    const { requests, failedTurns } = foldTimeline(log(), 'refused.jsonl')
    expect(failedTurns).toBe(1)
    const after = requests.at(-1)!
    expect(after.turn).toBe(3)
    // what the third turn's request carries: 'hello', 'hi' and 'again'
    expect(after.sizes.history).toBe('hello'.length + 'hi'.length + 'again'.length)
  })
})
