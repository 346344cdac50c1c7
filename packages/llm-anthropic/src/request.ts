import type { ToolSchema } from 'dsh-core'
import { toolNoticeText, type GenerateOptions, type ProjectedMessage, type projectToolUpdates } from 'dsh-llm'
import { traceBlock, type WireRequest } from 'dsh-llm/http'
import type { MessageCreateParamsStreaming, MessageParam } from '@anthropic-ai/sdk/resources/messages'

/** What dsh-llm's tool-update projection makes of a request. */
type ToolProjection = ReturnType<typeof projectToolUpdates>

/** A cache breakpoint (Anthropic profile only): the prefix through the marked block is cached for `ttl`. */
export interface WireCacheControl {
  type: 'ephemeral'
  ttl?: '5m' | '1h'
}

/** A tool declaration on the wire; `defer_loading` marks one announced later by a `tool_addition` block. */
export interface WireTool {
  name: string
  description: string
  input_schema: object
  defer_loading?: true
  cache_control?: WireCacheControl
}

export type WireContentBlock = (
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: true }
) & { cache_control?: WireCacheControl }

/** The system prompt as one text block, the form that can carry a breakpoint. */
export interface WireSystemBlock {
  type: 'text'
  text: string
  cache_control?: WireCacheControl
}

/** A tool as a tool-change block names it on Anthropic's own API: a `tools` entry by name, or inline. */
export type WireToolChangeTool =
  | { type: 'tool_reference'; name: string }
  | { type: 'tool_definition'; definition: { name: string; description: string; input_schema: object } }

/**
 * DSH's projection of a tool-registry update for Anthropic-compatible endpoints: DeepSeek's blocks (the
 * definition, the name) or Anthropic's (`tool_reference` / `tool_definition`, see anthropic-tool-changes.ts).
 */
export type WireToolUpdateBlock =
  | { type: 'tool_addition'; tool: { name: string; description: string; input_schema: object } | WireToolChangeTool }
  | { type: 'tool_removal'; name: string }
  | { type: 'tool_removal'; tool: { type: 'tool_reference'; name: string } }

export type WireMessage =
  | { role: 'user' | 'assistant'; content: string | WireContentBlock[] }
  | { role: 'system'; content: WireToolUpdateBlock[] }

/** A Messages API request body; keys are written in this order. */
export interface MessagesRequest {
  model: string
  max_tokens: number
  system?: string | WireSystemBlock[]
  tools?: WireTool[]
  messages: WireMessage[]
  stream: true
  /**
   * Anthropic's cache diagnostics (the anthropic profile only): the previous response of the sequence, `null`
   * on its first request; the response then says why the cache could not reuse that request's prefix.
   */
  diagnostics?: { previous_message_id: string | null }
}

/**
 * The SDK's request type plus what DeepSeek documents on its /anthropic route: system-role messages of
 * tool-update blocks (the SDK's tools already take `defer_loading`).
 */
export type DeepSeekMessagesParams = Omit<MessageCreateParamsStreaming, 'messages'> & {
  messages: (MessageParam | { role: 'system'; content: WireToolUpdateBlock[] })[]
}

/** A request body and whether it carries tool-update blocks (and so needs the beta header). */
export type BuiltRequest = WireRequest<MessagesRequest>

/**
 * Maps a request and its tool projection onto the Messages wire format. Pure: the same input gives the
 * same body, key for key, and each history message maps on its own, so a request that extends the
 * previous one's history serializes as an extension of its bytes. Tools keep the order they were given in.
 */
export function buildMessagesRequest(options: GenerateOptions, projection: ToolProjection, maxTokens: number, toUpdate: ToUpdateBlocks = deepSeekBlocks): BuiltRequest {
  const messages: WireMessage[] = []
  let hasToolUpdates = false
  let results: WireContentBlock[] | undefined
  for (const message of projection.messages) {
    if (message.role === 'tool') {
      // Results of one step go back together, in one user turn, as the API requires.
      const block: WireContentBlock = traceBlock({
        type: 'tool_result', tool_use_id: message.id, content: message.output, ...message.isError && { is_error: true as const },
      }, message)
      if (results) results.push(block)
      else messages.push({ role: 'user', content: results = [block] })
      continue
    }
    results = undefined
    const wire = toWireMessage(message, projection.mode === 'append', toUpdate)
    if (!wire) continue
    if (wire.role === 'system') hasToolUpdates = true
    messages.push(wire)
  }
  const tools = projection.declarations.map(({ definition, deferred }): WireTool => ({
    ...toWireTool(definition),
    ...deferred && { defer_loading: true as const },
  }))
  const body: MessagesRequest = {
    model: options.model,
    max_tokens: options.maxTokens ?? maxTokens,
    ...options.system && { system: options.system },
    ...tools.length > 0 && { tools },
    messages,
    stream: true,
  }
  return { body, hasToolUpdates }
}

/** A tool declaration's wire form (no `defer_loading`, no breakpoint). */
export function toWireTool(definition: ToolSchema) {
  return { name: definition.name, description: definition.description, input_schema: definition.parameters }
}

/** A tool-registry update as the projection hands it over. */
export type ToolUpdateNotice = Extract<ProjectedMessage, { role: 'tool-update' }>

/** How a tool-update notice becomes the blocks of a system-role message. */
export type ToUpdateBlocks = (notice: ToolUpdateNotice) => WireToolUpdateBlock[]

/** DeepSeek's blocks: each addition carries the definition, each removal the name. */
const deepSeekBlocks: ToUpdateBlocks = (notice) => [
  ...notice.added.map((definition) => ({ type: 'tool_addition' as const, tool: toWireTool(definition) })),
  ...notice.removed.map((name) => ({ type: 'tool_removal' as const, name })),
]

function toWireMessage(message: Exclude<ProjectedMessage, { role: 'tool' }>, asText: boolean, toUpdate: ToUpdateBlocks): WireMessage | undefined {
  switch (message.role) {
    case 'user':
      return traceBlock<WireMessage>({ role: 'user', content: message.text }, message)
    case 'assistant': {
      const content: WireContentBlock[] = []
      if (message.text) content.push({ type: 'text', text: message.text })
      for (const call of message.toolCalls) content.push({ type: 'tool_use', id: call.id, name: call.name, input: call.arguments })
      content.forEach((block, index) => traceBlock(block, message, index))
      // The API refuses an empty assistant turn; one that said and did nothing carries no information.
      return content.length ? { role: 'assistant', content } : undefined
    }
    case 'tool-update': {
      // a route without tool-update blocks is told in words (mode append: removals only)
      if (asText) return traceBlock<WireMessage>({ role: 'user', content: toolNoticeText(message) }, message)
      const content = toUpdate(message)
      return content.length ? { role: 'system', content } : undefined
    }
  }
}
