import { LlmError, collect, type CollectedResponse, type GenerateOptions, type LlmRoute } from 'dsh-llm'
import { TurnCancelled, type Turn } from './turn.ts'

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
