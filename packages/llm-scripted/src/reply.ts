import type { ToolCall, Usage } from 'dsh-core'
import type { StopReason } from 'dsh-llm'

/** One model response before it is streamed. */
export interface Reply {
  text: string
  /** Calls without an id get `call_<call number>_<position>`. */
  toolCalls: (Omit<ToolCall, 'id'> & { id?: string })[]
  /** Figures that replace the estimate, field by field. */
  usage?: Partial<Usage>
  /** Defaults to `tool_use` with tool calls, else `end_turn`. */
  stopReason?: StopReason
  /** Fail the call with this message instead of answering. */
  error?: string
  /** Wait this long before the first event. */
  delayMs?: number
}
