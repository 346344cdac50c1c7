import type { ToolCall, Usage } from 'dsh-core'
import type { StopReason, StreamEvent } from './types.ts'

type Verdict = Extract<StreamEvent, { type: 'verdict' }>['verdict']

/** A whole model response gathered from its stream. */
export interface CollectedResponse {
  text: string
  toolCalls: ToolCall[]
  /** Undefined when the provider reported no usage. */
  usage: Usage | undefined
  stopReason: StopReason
  /** The provider's cache verdict, when the route sent one (`StreamEvent` `verdict`). */
  verdict?: Verdict
}

/** What `collect` reports while it drains a stream. */
export interface CollectOptions {
  /** Called with each text delta as it arrives. */
  onText?: (delta: string) => void
}

/**
 * Drains a stream into one response. Errors of the stream propagate. A stream without `done` gets the
 * stop reason the runtime would synthesize (`tool_use` when calls were seen, else `end_turn`).
 */
export async function collect(stream: AsyncIterable<StreamEvent>, options: CollectOptions = {}): Promise<CollectedResponse> {
  const { onText } = options
  let text = ''
  const toolCalls: ToolCall[] = []
  let usage: Usage | undefined
  let stopReason: StopReason | undefined
  let verdict: Verdict | undefined
  for await (const event of stream) {
    if (event.type === 'text') {
      text += event.delta
      onText?.(event.delta)
    } else if (event.type === 'tool-call') toolCalls.push(event.call)
    else if (event.type === 'usage') usage = event.usage
    else if (event.type === 'verdict') verdict = event.verdict
    else if (event.type === 'done') {
      stopReason = event.stopReason
      break
    }
  }
  return { text, toolCalls, usage, stopReason: stopReason ?? (toolCalls.length ? 'tool_use' : 'end_turn'), ...verdict && { verdict } }
}
