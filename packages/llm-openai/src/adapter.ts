import type { GenerateOptions, LlmAdapter } from 'dsh-llm'
import { createHttpAdapter, httpWireBody, type HttpAdapterDefinition, type ResolvedHttpAdapterConfig, type WireRequest } from 'dsh-llm/http'
import type { APIError, OpenAI } from 'openai'
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions'
import { createClient } from './client.ts'
import { resolveConfig, type OpenAIConfig } from './config.ts'
import { failures } from './failures.ts'
import { applyChatMarks, markableChat } from './breakpoints.ts'
import { planChatCaching } from './cache-planning.ts'
import { affinityFields } from './affinity.ts'
import { buildChatRequest, type ChatRequest } from './request.ts'
import { ChatStreamReader } from './stream-reader.ts'
import { usageReaderOf } from './usage.ts'

/**
 * The Chat Completions wire on the shared HTTP adapter frame. Each model's `toolUpdate` mode decides how
 * tool changes are projected: `none` (the default but for `deepseek-flash`) sends the effective tools; the
 * other modes send `tool_addition` / `tool_removal` blocks in system-role messages, and only requests that
 * carry blocks get the `<toolUpdateBetaHeader>: <toolUpdateBeta>` header.
 */
export const chatCompletions: HttpAdapterDefinition<ResolvedHttpAdapterConfig<OpenAIConfig>, OpenAI, ChatRequest, ChatCompletionChunk, APIError> = {
  provider: 'openai',
  owner: 'dsh-llm-openai',
  path: '/chat/completions',
  resolveConfig,
  failures,
  betaHeader: (config) => config.toolUpdateBetaHeader,
  createClient,
  buildRequest: (options, projection, config, model) => {
    const built = buildChatRequest(options, projection)
    // the local engine's slot or session field, on entries that name an affinity (generic profile only)
    return { ...built, body: { ...planChatCaching(built.body, options, model, config.promptCacheKey), ...affinityFields(model, options.lineage) } }
  },
  // cache markers on messages: planned by dsh-llm's planCacheMarks, placed here
  markable: markableChat,
  applyMarks: applyChatMarks,
  // The SDK's types know neither system-role tool-update blocks nor `defer_loading`.
  send: (client, body, init) => client.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, init),
  reader: (model) => new ChatStreamReader(usageReaderOf(model?.profile)),
}

/**
 * An `LlmAdapter` for one OpenAI-compatible endpoint, for embedding without Cordis. The API key is read from
 * the environment variable named by `apiKeyEnv` at the first request.
 */
export function createOpenAIAdapter(input: Partial<OpenAIConfig>): LlmAdapter {
  return createHttpAdapter(chatCompletions, input)
}

/**
 * The body (and whether it carries tool-update blocks) an adapter configured by `input` sends for
 * `options`, cache fields included, without sending it.
 */
export function chatWireBody(input: Partial<OpenAIConfig>, options: GenerateOptions): WireRequest<ChatRequest> {
  return httpWireBody(chatCompletions, input, options)
}
