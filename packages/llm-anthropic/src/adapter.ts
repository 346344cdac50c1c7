import type Anthropic from '@anthropic-ai/sdk'
import type { APIError } from '@anthropic-ai/sdk'
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { GenerateOptions, LlmAdapter } from 'dsh-llm'
import { createHttpAdapter, httpWireBody, type HttpAdapterDefinition, type ResolvedHttpAdapterConfig, type WireRequest } from 'dsh-llm/http'
import { createClient } from './client.ts'
import { resolveConfig, type AnthropicConfig } from './config.ts'
import { failures } from './failures.ts'
import { placeBreakpoints } from './cache-markers.ts'
import { buildMessagesRequest, type MessagesRequest } from './request.ts'
import { MessageStreamReader } from './stream-reader.ts'

/**
 * The Messages wire on the shared HTTP adapter frame. Each model's `toolUpdate` mode decides how tool changes
 * are projected; requests that carry `tool_addition` / `tool_removal` blocks also carry the
 * `anthropic-beta: <toolUpdateBeta>` header, others never do.
 */
export const messages: HttpAdapterDefinition<ResolvedHttpAdapterConfig<AnthropicConfig>, Anthropic, MessagesRequest, RawMessageStreamEvent, APIError> = {
  provider: 'anthropic',
  owner: 'dsh-llm-anthropic',
  path: '/v1/messages',
  resolveConfig,
  failures,
  betaHeader: () => 'anthropic-beta',
  createClient,
  buildRequest: (options, projection, config, model) => {
    const built = buildMessagesRequest(options, projection, config.maxTokens)
    return { ...built, body: placeBreakpoints(built.body, model) }
  },
  // The SDK's types know neither system-role tool-update blocks nor every compatible server's extras.
  send: (client, body, init) => client.messages.create(body as unknown as MessageCreateParamsStreaming, init),
  reader: () => new MessageStreamReader(),
}

/**
 * An `LlmAdapter` for one Anthropic-Messages-compatible endpoint, for embedding without Cordis. The API key
 * is read from the environment variable named by `apiKeyEnv` at the first request.
 */
export function createAnthropicAdapter(input: Partial<AnthropicConfig>): LlmAdapter {
  return createHttpAdapter(messages, input)
}

/**
 * The body (and whether it carries tool-update blocks) an adapter configured by `input` sends for
 * `options`, cache breakpoints included, without sending it.
 */
export function messagesWireBody(input: Partial<AnthropicConfig>, options: GenerateOptions): WireRequest<MessagesRequest> {
  return httpWireBody(messages, input, options)
}
