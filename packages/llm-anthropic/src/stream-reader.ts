import type { ToolCall } from 'dsh-core'
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { StopReason, StreamEvent } from 'dsh-llm'
import { HttpAdapterError } from 'dsh-llm/http'
import { UsageAccumulator } from './usage.ts'

interface OpenToolUse {
  id: string
  name: string
  json: string
  /** The input sent with `content_block_start`, used when no JSON deltas follow. */
  input: unknown
}

/**
 * Turns Messages stream events into DSH stream events: text deltas as they arrive, each tool call once its
 * `tool_use` block closes (its `input_json_delta` fragments assembled and parsed), then usage and done.
 * Thinking and other block types are not part of DSH's stream and are skipped.
 */
export class MessageStreamReader {
  /** Whether the request asked for Anthropic's cache diagnostics (its model's entry): then the response's verdict is read. */
  constructor(private readonly diagnostics = false) {}

  private readonly open = new Map<number, OpenToolUse>()
  private verdict: Verdict | undefined
  private readonly usage = new UsageAccumulator()
  private stopReason: string | null = null
  private stopped = false
  private calls = 0
  /** Events read so far (for error messages). */
  received = 0

  read(event: RawMessageStreamEvent): StreamEvent[] {
    this.received++
    switch (event.type) {
      case 'message_start':
        this.usage.add(event.message?.usage)
        // the verdict rides on the message, so in a stream on message_start (SDK 1.17: Message.diagnostics)
        if (this.diagnostics) this.verdict = readVerdict(event.message as unknown as WireMessage | undefined)
        return []
      case 'content_block_start': {
        const block = event.content_block
        if (block.type === 'tool_use') {
          this.open.set(event.index, { id: block.id, name: block.name, json: '', input: block.input })
        } else if (block.type === 'text' && block.text) {
          return [{ type: 'text', delta: block.text }]
        }
        return []
      }
      case 'content_block_delta': {
        const delta = event.delta
        if (delta.type === 'text_delta') return delta.text ? [{ type: 'text', delta: delta.text }] : []
        if (delta.type === 'input_json_delta') {
          const call = this.open.get(event.index)
          if (!call) throw new HttpAdapterError('MALFORMED_STREAM', `input_json_delta for content block ${event.index}, which is not an open tool_use block`)
          call.json += delta.partial_json ?? ''
        }
        return []
      }
      case 'content_block_stop': {
        const call = this.open.get(event.index)
        if (!call) return []
        this.open.delete(event.index)
        this.calls++
        return [{ type: 'tool-call', call: parseCall(call) }]
      }
      case 'message_delta':
        this.stopReason = event.delta?.stop_reason ?? this.stopReason
        this.usage.add(event.usage)
        return []
      case 'message_stop':
        this.stopped = true
        return []
      default:
        return []
    }
  }

  /** The closing events. Throws when the stream was cut short. */
  finish(): StreamEvent[] {
    if (!this.stopped) {
      throw new HttpAdapterError('TRUNCATED_STREAM', `the stream ended after ${this.received} events without message_stop (truncated response)`)
    }
    if (this.open.size) {
      const names = [...this.open.values()].map((call) => JSON.stringify(call.name)).join(', ')
      throw new HttpAdapterError('TRUNCATED_STREAM', `the message stopped while tool_use blocks were still open: ${names}`)
    }
    const events: StreamEvent[] = []
    if (this.verdict) events.push({ type: 'verdict', verdict: this.verdict })
    const usage = this.usage.result()
    if (usage) events.push({ type: 'usage', usage })
    events.push({ type: 'done', stopReason: stopReason(this.stopReason, this.calls > 0) })
    return events
  }
}

type Verdict = Extract<StreamEvent, { type: 'verdict' }>['verdict']

/** What a response message carries for the verdict: its id and Anthropic's `diagnostics` (`Diagnostics` in the SDK's types). */
interface WireMessage {
  id?: unknown
  diagnostics?: { cache_miss_reason?: unknown } | null
}

/**
 * The provider's verdict from a response message: `diagnostics: null` means no divergence (no `reason`); a `diagnostics`
 * whose `cache_miss_reason` is null means the comparison was still running (pending). A reason type DSH does
 * not know is kept as it came, never dropped; a message without an id gives no verdict (nothing to chain).
 */
export function readVerdict(message: WireMessage | undefined): Verdict | undefined {
  if (!message || typeof message.id !== 'string' || !message.id) return undefined
  const responseId = message.id
  const diagnostics = message.diagnostics
  if (diagnostics === null || diagnostics === undefined || typeof diagnostics !== 'object') return { responseId }
  const miss = diagnostics.cache_miss_reason
  if (miss === null || miss === undefined) return { responseId, pending: true }
  const type = typeof miss === 'string' ? miss : (miss as { type?: unknown }).type
  const reason = typeof type === 'string' && type ? type : JSON.stringify(miss)
  const tokens = typeof miss === 'object' ? (miss as { cache_missed_input_tokens?: unknown }).cache_missed_input_tokens : undefined
  return { responseId, reason, ...Number.isSafeInteger(tokens) && (tokens as number) >= 0 && { missedTokens: tokens as number } }
}

function parseCall(call: OpenToolUse): ToolCall {
  const label = `tool call ${JSON.stringify(call.name)} (id ${call.id})`
  if (!call.id) throw new HttpAdapterError('INVALID_TOOL_CALL', `tool call ${JSON.stringify(call.name)} has no id`)
  if (!call.name) throw new HttpAdapterError('INVALID_TOOL_CALL', `tool call with id ${call.id} has no name`)
  let input: unknown = call.input ?? {}
  if (call.json.trim()) {
    try {
      input = JSON.parse(call.json)
    } catch (error) {
      throw new HttpAdapterError('INVALID_TOOL_CALL', `${label} has input that is not valid JSON: ${(error as Error).message}`)
    }
  }
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new HttpAdapterError('INVALID_TOOL_CALL', `${label} has input that is not a JSON object: ${call.json || JSON.stringify(input)}`)
  }
  return { id: call.id, name: call.name, arguments: input as Record<string, unknown> }
}

function stopReason(wire: string | null, sawCalls: boolean): StopReason {
  if (wire === 'max_tokens' || wire === 'model_context_window_exceeded') return 'max_tokens'
  return sawCalls ? 'tool_use' : 'end_turn'
}
