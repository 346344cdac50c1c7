import type { LlmAdapter } from 'dsh-llm'
import { createHttpAdapter, type HttpAdapterDefinition, type ResolvedHttpAdapterConfig } from 'dsh-llm/http'
import type { APIError, OpenAI } from 'openai'
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions'
import { createClient } from './client.ts'
import { resolveConfig, type OpenAIConfig } from './config.ts'
import { failures } from './failures.ts'
import { buildChatRequest, type ChatRequest } from './request.ts'
import { ChatStreamReader } from './stream-reader.ts'

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
  buildRequest: buildChatRequest,
  // The SDK's types know neither system-role tool-update blocks nor `defer_loading`.
  send: (client, body, init) => client.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, init),
  reader: () => new ChatStreamReader(),
}

/**
 * An `LlmAdapter` for one OpenAI-compatible endpoint, for embedding without Cordis. The API key is read from
 * the environment variable named by `apiKeyEnv` at the first request.
 */
export function createOpenAIAdapter(input: Partial<OpenAIConfig>): LlmAdapter {
  return createHttpAdapter(chatCompletions, input)
}
