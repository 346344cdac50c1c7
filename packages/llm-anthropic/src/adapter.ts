import type Anthropic from '@anthropic-ai/sdk'
import type { APIError } from '@anthropic-ai/sdk'
import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import type { MessageCreateParamsStreaming as BetaMessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/beta/messages'
import type { GenerateOptions, LlmAdapter } from 'dsh-llm'
import { createHttpAdapter, httpWireBody, type HttpAdapterDefinition, type HttpModel, type ResolvedHttpAdapterConfig, type WireRequest } from 'dsh-llm/http'
import { createClient } from './client.ts'
import { resolveConfig, type AnthropicConfig } from './config.ts'
import { failures } from './failures.ts'
import { applyBreakpoints, markableMessages } from './cache-markers.ts'
import { buildMessagesRequest, type BuiltRequest, type MessagesRequest } from './request.ts'
import { buildAnthropicToolChangeRequest, usesAnthropicToolChanges } from './anthropic-tool-changes.ts'
import { withSdkWarnings } from './sdk-warnings.ts'
import { MessageStreamReader } from './stream-reader.ts'

/**
 * The Messages wire on the shared HTTP adapter frame. Each model's `toolUpdate` mode decides how tool changes
 * are projected; requests that carry `tool_addition` / `tool_removal` blocks also carry the
 * `anthropic-beta` header (`toolUpdateBeta`, or Anthropic's own beta names on the anthropic profile), others
 * never do. Anthropic's own blocks go through the SDK's beta namespace, which types them.
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
    const built = usesAnthropicToolChanges(model)
      ? buildAnthropicToolChangeRequest(options, model, config.maxTokens)
      : buildMessagesRequest(options, projection, config.maxTokens)
    return withDiagnostics(built, model, options.previousResponseId)
  },
  // cache breakpoints: planned by dsh-llm's planCacheMarks, placed here
  markable: markableMessages,
  applyMarks: applyBreakpoints,
  // The SDK's non-beta types know neither system-role tool-update blocks nor every compatible server's extras.
  send: (client, body, init) => withSdkWarnings(client, () => hasAnthropicToolChanges(body)
    // the beta events are a superset of the ones the reader knows
    ? client.beta.messages.create(body as unknown as BetaMessageCreateParamsStreaming, init) as unknown as Promise<AsyncIterable<RawMessageStreamEvent>>
    : client.messages.create(body as unknown as MessageCreateParamsStreaming, init)),
  reader: (model) => new MessageStreamReader(model?.diagnostics === true),
}

/**
 * The request with Anthropic's cache diagnostics when its model asks for them (the anthropic profile, unless
 * the entry says `diagnostics: false`) and the caller keeps a sequence (`previousResponseId` given, `null` on
 * its first request). A field only Anthropic documents: no other profile's body ever carries it.
 */
function withDiagnostics(built: BuiltRequest, model: HttpModel | undefined, previous: string | null | undefined): BuiltRequest {
  if (!model?.diagnostics || previous === undefined) return built
  return { ...built, body: { ...built.body, diagnostics: { previous_message_id: previous } } }
}

/** Whether a body carries Anthropic's own tool-change blocks (a `tool` with a `type`), which DeepSeek's never do. */
function hasAnthropicToolChanges(body: MessagesRequest): boolean {
  return body.messages.some((message) => message.role === 'system' && message.content.some((block) => 'tool' in block && 'type' in block.tool))
}

/**
 * An `LlmAdapter` for one Anthropic-Messages-compatible endpoint, for embedding without Cordis. The API key
 * is read from the environment variable named by `apiKeyEnv` at the first request. `warn` gets the boot-time
 * notices (a mode that fell back) and the SDK's own warnings (a deprecated model), each once.
 */
export function createAnthropicAdapter(input: Partial<AnthropicConfig>, warn?: (message: string) => void): LlmAdapter {
  return createHttpAdapter(messages, input, warn)
}

/**
 * The body (and whether it carries tool-update blocks) an adapter configured by `input` sends for
 * `options`, cache breakpoints included, without sending it.
 */
export function messagesWireBody(input: Partial<AnthropicConfig>, options: GenerateOptions): WireRequest<MessagesRequest> {
  return httpWireBody(messages, input, options)
}
