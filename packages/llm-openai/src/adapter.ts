import type { LlmAdapter } from 'dsh-llm'
import { createHttpAdapter } from 'dsh-llm/http'
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions'
import { createClient } from './client.ts'
import { resolveConfig, type OpenAIConfig } from './config.ts'
import { failures } from './failures.ts'
import { buildChatRequest } from './request.ts'
import { ChatStreamReader } from './stream-reader.ts'

export const PROVIDER = 'openai'

/**
 * An `LlmAdapter` for one OpenAI-compatible endpoint (`createHttpAdapter` with the Chat Completions wire).
 * Each model's `toolUpdate` mode decides how tool changes are projected: `none` (the default but for
 * `deepseek-flash`) sends the effective tools; the other modes send `tool_addition` / `tool_removal` blocks
 * in system-role messages, and only requests that carry blocks get the `<toolUpdateBetaHeader>: <toolUpdateBeta>`
 * header. The API key is read from the environment variable named by `apiKeyEnv` at the first request.
 */
export function createOpenAIAdapter(input: Partial<OpenAIConfig>): LlmAdapter {
  const config = resolveConfig(input)
  return createHttpAdapter(config, {
    provider: PROVIDER,
    owner: 'dsh-llm-openai',
    path: '/chat/completions',
    failures,
    betaHeader: config.toolUpdateBetaHeader,
    createClient: (apiKey) => createClient(config, apiKey),
    buildRequest: buildChatRequest,
    // The SDK's types know neither system-role tool-update blocks nor `defer_loading`.
    send: (client, body, init) => client.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, init),
    reader: () => new ChatStreamReader(),
  })
}
