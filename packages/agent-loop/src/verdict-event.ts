import Schema from 'schemastery'
import { defineEvents, optional, record, type Session } from 'dsh-session'

/**
 * `provider/verdict`: the provider's own cache verdict on the request of `turn`/`step` (Anthropic's cache
 * diagnostics), logged right after that request's `assistant/message`. `responseId` is the response's id,
 * which the next request of the sequence names; `previousResponseId` is what this request named (absent:
 * the sequence's first, sent as `null`). `reason` is as the provider sent it, a reason DSH does not know
 * included; absent when it found no divergence. `pending`: it answered before its comparison finished.
 */
export interface ProviderVerdictEvent {
  turn: number
  step: number
  responseId: string
  previousResponseId?: string
  reason?: string
  missedTokens?: number
  pending?: true
}

declare module 'dsh-session' {
  interface SessionEventMap {
    'provider/verdict': ProviderVerdictEvent
  }
}

const id = Schema.string().min(1).description('a response id')

export const VERDICT_EVENTS = defineEvents({
  'provider/verdict': record({
    turn: Schema.natural(),
    step: Schema.natural(),
    responseId: id,
    previousResponseId: optional(id),
    reason: optional(Schema.string().min(1).description('a reason')),
    missedTokens: optional(Schema.natural()),
    pending: optional(Schema.const(true).description('true or absent')),
  }),
})

/**
 * The id of the previous response of the sequence the next request belongs to, read from the end of the log:
 * the last `provider/verdict`, or `null` when a compaction, a `sequence/reset` or a response without a verdict
 * (a route that keeps no sequence) comes after it, or the log has none. A model switch does not start a new
 * sequence: the provider's comparison with the previous request is what reports `model_changed`. Reads back
 * one step at most (a verdict follows its `assistant/message`).
 */
export function previousResponseId(session: Session): string | null {
  for (let seq = session.lastSeq; seq >= 1; seq--) {
    const event = session.event(seq)!
    if (event.type === 'provider/verdict') return (event.data as ProviderVerdictEvent).responseId
    if (event.type === 'assistant/message' || event.type === 'context/compaction' || event.type === 'sequence/reset') return null
  }
  return null
}

/** Logs the provider's verdict on `request` (step `step` of `turn`), right after the answer it came with. */
export function logVerdict(session: Session, turn: number, step: number, verdict: Omit<ProviderVerdictEvent, 'turn' | 'step' | 'previousResponseId'>, previous: string | null | undefined): void {
  session.append('provider/verdict', { turn, step, ...verdict, ...(previous ? { previousResponseId: previous } : {}) })
}
