import { COMPACTION_INSTRUCTION, messageOf, type Usage } from 'dsh-core'
import type LlmRuntime from 'dsh-llm'
import { LlmError, collect, type GenerateOptions } from 'dsh-llm'
import type { EventData, RequestHeader, Session } from 'dsh-session'
import { AgentLoopError } from './errors.ts'
import { estimateFill, estimateKept } from './fill.ts'
import type { HeaderLog } from './header.ts'
import { nextRequest } from './reconstruct.ts'
import type { Turn } from './turn.ts'

/** A model resolved once (`ctx.llm.route()`), and what `collect` makes of its stream. */
type LlmRoute = ReturnType<LlmRuntime['route']>
type CollectedResponse = Awaited<ReturnType<typeof collect>>

/** Why a compaction ran (its `context/compaction` event's `reason`). */
type CompactionReason = EventData<'context/compaction'>['reason']

/** The model-facing request without its signal, as the loop builds it from the log. */
export type PendingRequest = Omit<GenerateOptions, 'signal'>

/** What a compaction asks of the log and the model. */
export interface CompactionInput {
  session: Session
  /** Where the compaction request goes: the step's route, or the runtime itself. */
  llm: Pick<LlmRoute, 'stream'>
  /** The request the loop would send now (or sent last): its prefix is the compaction request's. */
  request: PendingRequest
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
  // outside the request sequence: it asks for no provider verdict, and the next step's request starts a new sequence
  const { previousResponseId: _sequence, ...rest } = request
  const options: GenerateOptions = {
    ...rest,
    messages: [...request.messages, { role: 'user', text: COMPACTION_INSTRUCTION }],
    signal: AbortSignal.any([signal, timeout]),
  }
  let response: CollectedResponse
  try {
    response = await collect(llm.stream(options))
  } catch (error) {
    if (signal.aborted) throw new CompactionCancelled()
    if (timeout.aborted || LlmError.is(error, 'CANCELLED')) {
      return { ok: false, error: `the compaction request timed out after ${timeoutMs} ms` }
    }
    return { ok: false, error: `the compaction request failed: ${messageOf(error)}` }
  }
  const { usage } = response
  if (response.stopReason === 'max_tokens') return { ok: false, error: 'the summary was cut off at the output limit' }
  const summary = response.text.trim()
  if (!summary) return { ok: false, error: 'the model answered the compaction request with an empty summary' }
  const logged = session.append('context/compaction', { turn, step, reason, summary, throughSeq, ...usage && { usage } })
  return { ok: true, summary, throughSeq, seq: logged.seq, ...usage && { usage } }
}

/** What the compaction trigger needs besides the session. */
export interface CompactorOptions {
  /** Share of the model's context window at which a step compacts first. */
  compactAt: number
  /** Time limit of one compaction request, in milliseconds. */
  timeoutMs: number
  headers: HeaderLog
  /** Called after a compaction was logged. */
  compacted: () => void
  warn: (message: string) => void
}

/** When and how an agent compacts its session: before a step that would pass `compactAt`, and on request. */
export class Compactor {
  constructor(private readonly session: Session, private readonly options: CompactorOptions) {}

  /**
   * Measures the step's request against the route's window and compacts first when it passes `compactAt`.
   * `request` is what the log would dispatch now (undefined before the session's first request: then the
   * assembled `header` and the logged messages are measured, and there is nothing to compact). The
   * compaction request carries the last logged header: the step's own when it is unchanged, else the one
   * the provider has cached. A request that passes the window fails the turn with one line — when there
   * is nothing to compact, when compaction fails, and when even the compacted request is too big — and the
   * next turn tries again; a failed compaction of a request that still fits lets the step go on.
   */
  async fit(turn: Turn, route: LlmRoute, header: RequestHeader, request: PendingRequest | undefined, throughSeq: number): Promise<void> {
    const window = route.contextWindow()
    if (window === undefined) return
    const logged = this.session.requestHeader()?.data.header
    const changed = !logged || !this.options.headers.same(logged, header)
    // The logged tool list is measured once per header; an assembled one only when it is about to replace it.
    const fill = estimateFill(this.session, { ...changed ? header : logged, messages: this.session.messages() }, changed)
    if (fill < this.options.compactAt * window) return
    const tooBig = (tokens: number, why: string) => new AgentLoopError('CONTEXT_FULL',
      `the next request needs about ${tokens} tokens, more than the ${window}-token context window of "${header.model}", ${why}`)
    if (!request) {
      if (fill > window) throw tooBig(fill, 'and there is no earlier history to compact')
      return
    }
    // What stays after any compaction passes the window on its own: no compaction is sent, for it would
    // carry the turn's message to the provider (and past the window), and the message is refused.
    const kept = estimateKept(this.session, header, throughSeq)
    if (kept > window) throw tooBig(kept, 'even without the earlier history')
    const outcome = await this.run(turn, route, 'auto', throughSeq, request)
    if (outcome.ok) {
      // the step's own header with the summary in place of the history: what the step will send
      const compacted = estimateFill(this.session, { ...header, messages: this.session.messages() }, true)
      if (compacted > window) throw tooBig(compacted, 'even with the history compacted')
      return
    }
    if (fill > window) throw tooBig(fill, `and compaction failed: ${outcome.error}`)
    this.options.warn(`compaction at ${fill} of ${window} tokens failed, the step goes on: ${outcome.error}`)
  }

  /** One compaction of the history through `throughSeq` with `request`'s prefix, announced to observers either way. */
  async run(current: Turn, llm: Pick<LlmRoute, 'stream'>, reason: CompactionReason, throughSeq: number,
    request: PendingRequest | undefined): Promise<CompactionOutcome> {
    const { turn, step, signal } = current
    const outcome: CompactionOutcome = !request ? { ok: false, error: 'nothing to compact: no request was made yet' }
      : !this.hasHistoryThrough(throughSeq) ? { ok: false, error: 'nothing to compact: no message since the last compaction' }
      : await compact({ session: this.session, llm, request, throughSeq, turn, step, reason, signal, timeoutMs: this.options.timeoutMs })
    if (outcome.ok) this.options.compacted()
    current.notify(outcome.ok
      ? { type: 'compaction', turn, step, reason, throughSeq, ...outcome.usage && { usage: outcome.usage } }
      : { type: 'compaction', turn, step, reason, error: outcome.error })
    return outcome
  }

  /** `Agent.compact()`: everything logged so far, once the log is flushed. A failure is the outcome, never a rejection. */
  async manual(current: Turn, llm: Pick<LlmRoute, 'stream'>, reason: CompactionReason = 'manual'): Promise<CompactionOutcome> {
    try {
      await this.session.flushed()
      const outcome = await this.run(current, llm, reason, this.session.lastSeq, nextRequest(this.session))
      await this.session.flushed()
      return outcome
    } catch (error) {
      return { ok: false, error: error instanceof CompactionCancelled ? 'the compaction was cancelled' : messageOf(error) }
    }
  }

  /** True when a message that was not refused was logged after the last compaction and at or before `throughSeq`. */
  private hasHistoryThrough(throughSeq: number): boolean {
    const refused = new Set<number>()
    for (let seq = Math.min(throughSeq, this.session.lastSeq); seq >= 1; seq--) {
      const event = this.session.event(seq)!
      const type = event.type
      if (event.type === 'user/refused') refused.add(event.data.messageSeq)
      if (refused.has(seq)) continue
      if (type === 'context/compaction') return false
      if (type === 'user/message' || type === 'assistant/message' || type === 'tool/result') return true
    }
    return false
  }
}
