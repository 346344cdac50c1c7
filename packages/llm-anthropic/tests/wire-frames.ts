// Messages stream frames for this adapter's tests (moved from the dsh-llm-testing kit: only these tests use them).
import type { Usage } from 'dsh-core'
import type { ServerResponse } from 'node:http'

/** One Messages stream event as JSON. */
export type WireEvent = { type: string; [key: string]: unknown }

/** Writes `events` as a Messages event stream (`event:` + `data:` lines). */
export function sendEvents(res: ServerResponse, events: WireEvent[]) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const event of events) res.write(frame(event))
  res.end()
}

export function frame(event: WireEvent) {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
}

/** Answers with an HTTP error and an Anthropic-shaped JSON error body. */
export function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify({ type: 'error', error: { type, message } }))
}

const DEFAULT_USAGE = { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }

export function messageStart(usage: Record<string, unknown> = DEFAULT_USAGE) {
  return {
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'test-model', content: [], stop_reason: null, stop_sequence: null, usage },
  }
}

export function messageEnd(stopReason: string, usage: Record<string, unknown> = { output_tokens: 5 }) {
  return [
    { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage },
    { type: 'message_stop' },
  ]
}

function textBlock(index: number, text: string) {
  return [
    { type: 'content_block_start', index, content_block: { type: 'text', text: '' } },
    { type: 'ping' },
    ...(text.match(/.{1,4}/gs) ?? []).map((piece) => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } })),
    { type: 'content_block_stop', index },
  ]
}

function toolBlock(index: number, call: { id: string; name: string; input: string }) {
  return [
    { type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} } },
    ...(call.input.match(/.{1,5}/gs) ?? []).map((piece) => ({
      type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece },
    })),
    { type: 'content_block_stop', index },
  ]
}

/** A whole reply: optional text, then tool_use blocks with their input streamed as JSON fragments. */
export function reply(
  { text = '', calls = [], start, end }: {
    text?: string
    calls?: { id: string; name: string; input: string }[]
    start?: Record<string, unknown>
    end?: Record<string, unknown>
  } = {},
) {
  const events: WireEvent[] = [messageStart(start)]
  let index = 0
  if (text) events.push(...textBlock(index++, text))
  for (const call of calls) events.push(...toolBlock(index++, call))
  events.push(...messageEnd(calls.length ? 'tool_use' : 'end_turn', end))
  return events
}

/** Normalized usage as an Anthropic server would report it (input_tokens excludes cached tokens). */
export function wireUsage(usage: Usage) {
  return {
    input_tokens: usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens,
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation_input_tokens: usage.cacheWriteTokens,
  }
}
