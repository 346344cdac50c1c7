import { COMPACTION_INSTRUCTION, messageOf, type Usage } from 'dsh-core'
import { LlmError, type GenerateOptions, type LlmRuntime } from 'dsh-llm'
import type { CompactionReason, Session } from 'dsh-session'

/** What a compaction asks of the log and the model. */
export interface CompactionInput {
  session: Session
  llm: LlmRuntime
  /** The request the loop would send now (or sent last): its prefix is the compaction request's. */
  request: Omit<GenerateOptions, 'signal'>
  /** Seq of the last event the summary replaces. */
  throughSeq: number
  turn: number
  step: number
  reason: CompactionReason
  signal: AbortSignal
  timeoutMs: number
}

/** How a compaction ended: logged with its summary, or not logged and why. */
export type CompactionOutcome =
  | { ok: true; summary: string; throughSeq: number; seq: number; usage?: Usage }
  | { ok: false; error: string }

/** Thrown when the caller's own signal ended the compaction: the turn is cancelled, not failed. */
export class CompactionCancelled extends Error {}

/**
 * Sends the compaction request — the given request unchanged, the same tool-history snapshot, plus one
 * user message asking for a summary — and logs `context/compaction` when a summary comes back. Any
 * failure (the provider's error, a timeout, a cut-off or empty answer) logs nothing and is returned.
 */
export async function compact(input: CompactionInput): Promise<CompactionOutcome> {
  const { session, llm, request, throughSeq, turn, step, reason, signal, timeoutMs } = input
  const timeout = AbortSignal.timeout(timeoutMs)
  const options: GenerateOptions = {
    ...request,
    messages: [...request.messages, { role: 'user', text: COMPACTION_INSTRUCTION }],
    signal: AbortSignal.any([signal, timeout]),
  }
  let summary = ''
  let usage: Usage | undefined
  let stopReason = ''
  try {
    for await (const event of llm.stream(options)) {
      if (event.type === 'text') summary += event.delta
      else if (event.type === 'usage') usage = event.usage
      else if (event.type === 'done') stopReason = event.stopReason
    }
  } catch (error) {
    if (signal.aborted) throw new CompactionCancelled()
    if (timeout.aborted || (error instanceof LlmError && error.code === 'CANCELLED')) {
      return { ok: false, error: `the compaction request timed out after ${timeoutMs} ms` }
    }
    return { ok: false, error: `the compaction request failed: ${messageOf(error)}` }
  }
  if (stopReason === 'max_tokens') return { ok: false, error: 'the summary was cut off at the output limit' }
  summary = summary.trim()
  if (!summary) return { ok: false, error: 'the model answered the compaction request with an empty summary' }
  const logged = session.append('context/compaction', { turn, step, reason, summary, throughSeq, ...usage && { usage } })
  return { ok: true, summary, throughSeq, seq: logged.seq, ...usage && { usage } }
}
