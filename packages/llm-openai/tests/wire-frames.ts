// Chat Completions stream frames for this adapter's tests (moved from the dsh-llm-testing kit: only these tests use them).
import type { Usage } from 'dsh-core'
import type { ServerResponse } from 'node:http'

/** Writes `chunks` as a Chat Completions event stream, then `[DONE]`. */
export function sendStream(res: ServerResponse, chunks: unknown[], { done = true } = {}) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
  for (const chunk of chunks) res.write(`data: ${JSON.stringify(chunk)}\n\n`)
  if (done) res.write('data: [DONE]\n\n')
  res.end()
}

/** Answers with an HTTP error and an OpenAI-shaped JSON error body. */
export function sendError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify({ error: { message, type: 'server_error', code: null } }))
}

export function chunk(delta: Record<string, unknown>, finishReason: string | null = null) {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [{ index: 0, delta, finish_reason: finishReason }] }
}

export function usageChunk(usage: Record<string, unknown>) {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 0, model: 'test-model', choices: [], usage }
}

/** A text reply split into small deltas, a finish chunk and a usage chunk. */
export function textReply(text: string, usage: Record<string, unknown> = { prompt_tokens: 10, completion_tokens: 2 }) {
  const pieces = text.match(/.{1,4}/gs) ?? []
  return [
    chunk({ role: 'assistant', content: '' }),
    ...pieces.map((piece) => chunk({ content: piece })),
    chunk({}, 'stop'),
    usageChunk(usage),
  ]
}

/** Tool calls streamed the way OpenAI does: id and name first, then the arguments in fragments. */
export function toolCallReply(calls: { id: string; name: string; arguments: string }[], usage: Record<string, unknown> = { prompt_tokens: 10, completion_tokens: 2 }) {
  const chunks: unknown[] = [chunk({ role: 'assistant', content: null })]
  calls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
    for (const piece of call.arguments.match(/.{1,5}/gs) ?? []) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
    }
  })
  chunks.push(chunk({}, 'tool_calls'), usageChunk(usage))
  return chunks
}

/** Normalized usage as an OpenAI server would report it. */
export function wireUsage(usage: Usage) {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
  }
}
