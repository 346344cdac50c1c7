import type { MessageCreateParamsStreaming } from '@anthropic-ai/sdk/resources/messages'
import type { LlmAdapter } from 'dsh-llm'
import { createHttpAdapter } from 'dsh-llm/http'
import { createClient } from './client.ts'
import { resolveConfig, type AnthropicConfig } from './config.ts'
import { failures } from './failures.ts'
import { buildMessagesRequest } from './request.ts'
import { MessageStreamReader } from './stream-reader.ts'

export const PROVIDER = 'anthropic'

/**
 * An `LlmAdapter` for one Anthropic-Messages-compatible endpoint (`createHttpAdapter` with the Messages
 * wire). Each model's `toolUpdate` mode decides how tool changes are projected; requests that carry
 * `tool_addition` / `tool_removal` blocks also carry the `anthropic-beta: <toolUpdateBeta>` header, others
 * never do. The API key is read from the environment variable named by `apiKeyEnv` at the first request.
 */
export function createAnthropicAdapter(input: Partial<AnthropicConfig>): LlmAdapter {
  const config = resolveConfig(input)
  return createHttpAdapter(config, {
    provider: PROVIDER,
    owner: 'dsh-llm-anthropic',
    path: '/v1/messages',
    betaHeader: 'anthropic-beta',
    failures,
    reader: () => new MessageStreamReader(),
    createClient: (apiKey) => createClient(config, apiKey),
    buildRequest: (options, projection) => buildMessagesRequest(options, projection, config.maxTokens),
    // The SDK's types know neither system-role tool-update blocks nor every compatible server's extras.
    send: (client, body, init) => client.messages.create(body as unknown as MessageCreateParamsStreaming, init),
  })
}
