import type { ToolCall, Usage } from 'dsh-core'
import type { StopReason, StreamEvent } from 'dsh-llm'
import type { ChatCompletionChunk } from 'openai/resources/chat/completions'
import { HttpAdapterError } from 'dsh-llm/http'
import { toUsage, type UsageReader, type WireUsage } from './usage.ts'

interface PartialCall {
  id: string
  name: string
  arguments: string
}

/**
 * Turns Chat Completions chunks into stream events. Text is passed through as it arrives; tool-call
 * fragments are gathered by index and emitted, parsed, once the stream ends, followed by usage and done.
 */
export class ChatStreamReader {
  private readonly calls = new Map<number, PartialCall>()
  private finishReason: string | undefined
  private usage: Usage | undefined
  /** Chunks read so far (for error messages). */
  received = 0

  constructor(private readonly readUsage: UsageReader = toUsage) {}

  read(chunk: ChatCompletionChunk): StreamEvent[] {
    this.received++
    const events: StreamEvent[] = []
    if (chunk.usage) this.usage = this.readUsage(chunk.usage as WireUsage)
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0)
    if (!choice) return events
    const delta = choice.delta ?? {}
    if (typeof delta.content === 'string' && delta.content) events.push({ type: 'text', delta: delta.content })
    delta.tool_calls?.forEach((fragment, position) => {
      const index = typeof fragment.index === 'number' ? fragment.index : position
      const call = this.calls.get(index) ?? { id: '', name: '', arguments: '' }
      if (!call.id && fragment.id) call.id = fragment.id
      if (!call.name && fragment.function?.name) call.name = fragment.function.name
      if (fragment.function?.arguments) call.arguments += fragment.function.arguments
      this.calls.set(index, call)
    })
    if (choice.finish_reason) this.finishReason = choice.finish_reason
    return events
  }

  /** The closing events. Throws when the stream was cut short or a tool call does not parse. */
  finish(): StreamEvent[] {
    if (this.finishReason === undefined) {
      throw new HttpAdapterError('TRUNCATED_STREAM', `the stream ended after ${this.received} chunks without a finish_reason (truncated response)`)
    }
    const events: StreamEvent[] = []
    const indexes = [...this.calls.keys()].sort((a, b) => a - b)
    for (const index of indexes) events.push({ type: 'tool-call', call: parseCall(this.calls.get(index)!, index) })
    if (this.usage) events.push({ type: 'usage', usage: this.usage })
    events.push({ type: 'done', stopReason: stopReason(this.finishReason, indexes.length > 0) })
    return events
  }
}

function parseCall(call: PartialCall, index: number): ToolCall {
  const label = `tool call ${call.name ? JSON.stringify(call.name) : `at index ${index}`}`
  if (!call.id) throw new HttpAdapterError('INVALID_TOOL_CALL', `${label} has no id`)
  if (!call.name) throw new HttpAdapterError('INVALID_TOOL_CALL', `${label} (id ${call.id}) has no function name`)
  let parsed: unknown = {}
  if (call.arguments.trim()) {
    try {
      parsed = JSON.parse(call.arguments)
    } catch (error) {
      throw new HttpAdapterError('INVALID_TOOL_CALL', `${label} (id ${call.id}) has arguments that are not valid JSON: ${(error as Error).message}`)
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new HttpAdapterError('INVALID_TOOL_CALL', `${label} (id ${call.id}) has arguments that are not a JSON object: ${call.arguments}`)
  }
  return { id: call.id, name: call.name, arguments: parsed as Record<string, unknown> }
}

function stopReason(finishReason: string, sawCalls: boolean): StopReason {
  if (finishReason === 'length') return 'max_tokens'
  return sawCalls ? 'tool_use' : 'end_turn'
}
