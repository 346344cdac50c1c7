import type LlmRuntime from 'dsh-llm'
import { LlmError, collect, type GenerateOptions } from 'dsh-llm'
import { TurnCancelled, type Turn } from './turn.ts'

/** A model resolved once (`ctx.llm.route()`), and what `collect` makes of its stream. */
type LlmRoute = ReturnType<LlmRuntime['route']>
type CollectedResponse = Awaited<ReturnType<typeof collect>>

/** Sends `request` through `route`, streams its text to the turn's observers and collects the answer; a cancel ends the turn. */
export async function callModel(current: Turn, route: LlmRoute, request: GenerateOptions): Promise<CollectedResponse> {
  const { turn, step, signal, notify } = current
  let response
  try {
    response = await collect(route.stream(request), { onText: (delta) => notify({ type: 'text', turn, step, delta }) })
  } catch (error) {
    if (LlmError.is(error, 'CANCELLED')) throw new TurnCancelled()
    throw error
  }
  if (signal.aborted) throw new TurnCancelled()
  return response
}
