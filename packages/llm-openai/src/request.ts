import type { AffinityFields } from './affinity.ts'
import type { ToolSchema } from 'dsh-core'
import { toolNoticeText, type GenerateOptions, type ProjectedMessage, type projectToolUpdates } from 'dsh-llm'
import { traceBlock, type WireRequest } from 'dsh-llm/http'
import type {
  ChatCompletionAssistantMessageParam, ChatCompletionContentPartText, ChatCompletionCreateParamsStreaming, ChatCompletionFunctionTool,
  ChatCompletionMessageParam, ChatCompletionSystemMessageParam, ChatCompletionToolMessageParam, ChatCompletionUserMessageParam,
} from 'openai/resources/chat/completions'

/** What dsh-llm's tool-update projection makes of a request. */
type ToolProjection = ReturnType<typeof projectToolUpdates>

/** A tool declaration on the wire; `defer_loading` marks one announced later by a `tool_addition` block. */
export type WireChatTool = ChatCompletionFunctionTool & { defer_loading?: true }

/**
 * A projected tool-registry update on DeepSeek's Chat Completions route
 * (.agents/notes/implemented/feature/2026-11-30-effective-tool-header.md). */
export type WireToolUpdateBlock =
  | { type: 'tool_addition'; tool: { name: string; description: string; parameters: object } }
  | { type: 'tool_removal'; name: string }

/** A system-role message that carries tool-update blocks instead of text. */
export interface WireToolUpdateMessage {
  role: 'system'
  content: WireToolUpdateBlock[]
}

/** DashScope's explicit-cache marker on a content part (dashscope profile only). */
export interface DashScopeCacheControl {
  type: 'ephemeral'
}

/** A text content part that may carry DashScope's marker. */
export type DashScopeTextPart = ChatCompletionContentPartText & { cache_control?: DashScopeCacheControl }

/** A message whose text is sent as one marked content part, the form DashScope caches at. */
export type DashScopeMarkedMessage =
  | (Omit<ChatCompletionSystemMessageParam, 'content'> & { content: DashScopeTextPart[] })
  | (Omit<ChatCompletionUserMessageParam, 'content'> & { content: DashScopeTextPart[] })
  | (Omit<ChatCompletionAssistantMessageParam, 'content'> & { content: DashScopeTextPart[] })
  | (Omit<ChatCompletionToolMessageParam, 'content'> & { content: DashScopeTextPart[] })

/** A Chat Completions request body as this adapter writes it; keys are written in this order. */
export type ChatRequest = Omit<ChatCompletionCreateParamsStreaming, 'messages' | 'tools'> & AffinityFields & {
  messages: (ChatCompletionMessageParam | WireToolUpdateMessage | DashScopeMarkedMessage)[]
  tools?: WireChatTool[]
}

/** The SDK's request type plus what DeepSeek documents on its route: tool-update messages and deferred declarations. */
export type DeepSeekChatParams = Omit<ChatCompletionCreateParamsStreaming, 'messages' | 'tools'> & {
  messages: (ChatCompletionMessageParam | WireToolUpdateMessage)[]
  tools?: WireChatTool[]
}

/** The SDK's request type plus what DashScope documents: `cache_control` on a message's text parts. */
export type DashScopeChatParams = Omit<ChatCompletionCreateParamsStreaming, 'messages'> & {
  messages: (ChatCompletionMessageParam | DashScopeMarkedMessage)[]
}

/** A request body and whether it carries tool-update blocks (and so needs the beta header). */
export type BuiltChatRequest = WireRequest<ChatRequest>

/**
 * Maps a request and its tool projection onto the Chat Completions wire format. Pure: the same options
 * and projection give the same body, key for key, and each history message maps on its own, so an
 * unchanged history serializes to the same bytes on every request. Tools keep the order they were
 * given in. Projected tool updates (modes other than `none`) become system-role messages of
 * `tool_addition` / `tool_removal` blocks, and tools the projection defers get `defer_loading: true`.
 */
export function buildChatRequest(options: GenerateOptions, projection: ToolProjection): BuiltChatRequest {
  const messages: ChatRequest['messages'] = []
  let hasToolUpdates = false
  if (options.system) messages.push({ role: 'system', content: options.system })
  for (const message of projection.messages) {
    const wire = toWireMessage(message, projection.mode === 'append')
    if (!wire) continue
    traceBlock(wire, message)
    if (wire.role === 'system') hasToolUpdates = true
    messages.push(wire)
  }
  const tools = projection.declarations.map(({ definition, deferred }): WireChatTool => ({
    type: 'function',
    function: toWireFunction(definition),
    ...deferred && { defer_loading: true as const },
  }))
  const body: ChatRequest = {
    model: options.model,
    messages,
    ...tools.length > 0 && { tools },
    ...options.maxTokens !== undefined && { max_tokens: options.maxTokens },
    stream: true,
    stream_options: { include_usage: true },
  }
  return { body, hasToolUpdates }
}

function toWireFunction(definition: ToolSchema) {
  return { name: definition.name, description: definition.description, parameters: definition.parameters as Record<string, unknown> }
}

function toWireMessage(message: ProjectedMessage, asText: boolean): ChatCompletionMessageParam | WireToolUpdateMessage | undefined {
  switch (message.role) {
    case 'user':
      return { role: 'user', content: message.text }
    case 'assistant':
      if (message.toolCalls.length === 0) return { role: 'assistant', content: message.text }
      return {
        role: 'assistant',
        content: message.text || null,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        })),
      }
    case 'tool':
      return { role: 'tool', tool_call_id: message.id, content: message.output }
    case 'tool-update': {
      // a route without tool-update blocks is told in words (mode append: removals only)
      if (asText) return { role: 'user', content: toolNoticeText(message) }
      const content: WireToolUpdateBlock[] = [
        ...message.added.map((definition) => ({ type: 'tool_addition' as const, tool: toWireFunction(definition) })),
        ...message.removed.map((name) => ({ type: 'tool_removal' as const, name })),
      ]
      return content.length ? { role: 'system', content } : undefined
    }
  }
}
