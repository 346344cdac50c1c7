import { messageOf, type ToolCall, type Usage } from 'dsh-core'
import { LlmError } from './error.ts'
import type { GenerateOptions, LlmAdapter, StopReason, StreamEvent } from './types.ts'
import { normalizeUsage } from './usage.ts'

const STOP_REASONS: readonly StopReason[] = ['end_turn', 'tool_use', 'max_tokens', 'cancelled']

/** What the guard reports once an adapter stream completed normally. */
export interface GuardedResult {
  usage: Usage | undefined
  stopReason: StopReason
}

/**
 * Streams `adapter` for the (already frozen) `options` and enforces the stream contract: well-formed
 * events only, at most one usage (normalized), exactly one terminal `done` (synthesized when the adapter
 * ends without one), nothing read past `done`. An aborted signal ends the stream with `CANCELLED` at once,
 * even if the adapter itself is stuck; adapter failures become `ADAPTER_ERROR` naming the provider.
 * `onResult` runs before `done` is yielded, so consumers that stop at `done` still trigger it.
 */
export async function* guardStream(
  adapter: LlmAdapter,
  options: GenerateOptions,
  onResult: (result: GuardedResult) => void,
): AsyncGenerator<StreamEvent, void, undefined> {
  const { signal, model } = options
  const { provider } = adapter
  const cancelled = () => new LlmError('CANCELLED', `request to model "${model}" (provider "${provider}") was cancelled`, {
    provider, model, cause: signal?.reason,
  })
  const protocol = (message: string) => new LlmError('PROTOCOL_ERROR', `provider "${provider}" broke the stream contract for model "${model}": ${message}`, {
    provider, model,
  })
  const wrap = (error: unknown) => {
    if (signal?.aborted) return cancelled()
    if (LlmError.is(error, 'CANCELLED')) return error
    return new LlmError('ADAPTER_ERROR', `provider "${provider}" failed for model "${model}": ${messageOf(error)}`, {
      provider, model, cause: error,
    })
  }

  if (signal?.aborted) throw cancelled()
  let iterator: AsyncIterator<StreamEvent>
  try {
    iterator = adapter.stream(options)[Symbol.asyncIterator]()
  } catch (error) {
    throw wrap(error)
  }
  const abort = abortRace(signal, cancelled)
  let exhausted = false
  let usage: Usage | undefined
  let sawVerdict = false
  let sawToolCall = false
  try {
    while (true) {
      let step: IteratorResult<StreamEvent>
      try {
        step = await (abort ? Promise.race([iterator.next(), abort.promise]) : iterator.next())
      } catch (error) {
        throw wrap(error)
      }
      if (step.done) {
        exhausted = true
        break
      }
      const event = step.value as unknown as Record<string, unknown> | null
      switch (event?.type) {
        case 'text':
          if (typeof event.delta !== 'string') throw protocol(`text delta must be a string, got ${typeof event.delta}`)
          if (event.delta) yield { type: 'text', delta: event.delta }
          break
        case 'tool-call': {
          const problem = toolCallProblem(event.call)
          if (problem) throw protocol(problem)
          sawToolCall = true
          yield { type: 'tool-call', call: event.call as ToolCall }
          break
        }
        case 'usage':
          if (usage) throw protocol('usage was reported twice')
          usage = normalizeUsage(event.usage as Partial<Usage>)
          yield { type: 'usage', usage }
          break
        case 'verdict': {
          if (sawVerdict) throw protocol('a verdict was reported twice')
          const problem = verdictProblem(event.verdict)
          if (problem) throw protocol(problem)
          sawVerdict = true
          yield { type: 'verdict', verdict: event.verdict as Extract<StreamEvent, { type: 'verdict' }>['verdict'] }
          break
        }
        case 'done': {
          const stopReason = event.stopReason as StopReason
          if (!STOP_REASONS.includes(stopReason)) {
            throw protocol(`unknown stop reason ${JSON.stringify(stopReason)}; valid: ${STOP_REASONS.join(', ')}`)
          }
          onResult({ usage, stopReason })
          yield { type: 'done', stopReason }
          return
        }
        default:
          throw protocol(`unknown event type ${JSON.stringify(event?.type)}; valid: text, tool-call, usage, verdict, done`)
      }
      if (signal?.aborted) throw cancelled()
    }
    const stopReason: StopReason = sawToolCall ? 'tool_use' : 'end_turn'
    onResult({ usage, stopReason })
    yield { type: 'done', stopReason }
  } finally {
    abort?.dispose()
    // Close the adapter (its HTTP body, its timers) without waiting: a stuck adapter must not hold us.
    if (!exhausted) Promise.resolve().then(() => iterator.return?.()).catch(() => {})
  }
}

function verdictProblem(verdict: unknown): string | undefined {
  if (verdict === null || typeof verdict !== 'object') return 'a verdict must be an object'
  const { responseId, reason, missedTokens } = verdict as Record<string, unknown>
  if (typeof responseId !== 'string' || !responseId) return `a verdict's responseId must be a non-empty string, got ${JSON.stringify(responseId)}`
  if (reason !== undefined && (typeof reason !== 'string' || !reason)) return `a verdict's reason must be a non-empty string or absent, got ${JSON.stringify(reason)}`
  if (missedTokens !== undefined && !(Number.isSafeInteger(missedTokens) && (missedTokens as number) >= 0)) {
    return `a verdict's missedTokens must be a whole number >= 0, got ${JSON.stringify(missedTokens)}`
  }
}

function toolCallProblem(call: unknown): string | undefined {
  if (call === null || typeof call !== 'object') return 'tool call must be an object'
  const { id, name, arguments: args } = call as Record<string, unknown>
  if (typeof id !== 'string' || !id) return `tool call id must be a non-empty string, got ${JSON.stringify(id)}`
  if (typeof name !== 'string' || !name) return `tool call name must be a non-empty string, got ${JSON.stringify(name)}`
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return `arguments of tool call "${name}" must be a JSON object, got ${JSON.stringify(args)}`
  }
}

function abortRace(signal: AbortSignal | undefined, reason: () => Error) {
  if (!signal) return undefined
  let listener!: () => void
  const promise = new Promise<never>((_, reject) => {
    listener = () => reject(reason())
    signal.addEventListener('abort', listener, { once: true })
  })
  promise.catch(() => {})
  return { promise, dispose: () => signal.removeEventListener('abort', listener) }
}
