import type { GenerateOptions, ProjectedMessage, ToolProjection } from 'dsh-llm'
import type {
  ChatCompletionCreateParamsStreaming, ChatCompletionFunctionTool, ChatCompletionMessageParam,
} from 'openai/resources/chat/completions'

/**
 * Maps a request onto the Chat Completions wire format. Pure: the same options and projection give the
 * same body, key for key, so an unchanged history serializes to the same bytes on every request.
 * Tools keep the order they were given in.
 */
export function buildChatRequest(options: GenerateOptions, projection: ToolProjection): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = []
  if (options.system) messages.push({ role: 'system', content: options.system })
  for (const message of projection.messages) {
    const wire = toWireMessage(message)
    if (wire) messages.push(wire)
  }
  const tools: ChatCompletionFunctionTool[] = projection.declarations.map(({ definition }) => ({
    type: 'function',
    function: {
      name: definition.name,
      description: definition.description,
      parameters: definition.parameters as Record<string, unknown>,
    },
  }))
  return {
    model: options.model,
    messages,
    ...tools.length > 0 && { tools },
    ...options.maxTokens !== undefined && { max_tokens: options.maxTokens },
    stream: true,
    stream_options: { include_usage: true },
  }
}

function toWireMessage(message: ProjectedMessage): ChatCompletionMessageParam | undefined {
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
    // Chat Completions has no way to announce a tool change in history; the `none` projection
    // never produces notices, and the changed declarations already say everything.
    case 'tool-update':
      return undefined
  }
}
