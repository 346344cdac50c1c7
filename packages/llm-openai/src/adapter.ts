import { projectToolUpdates, type GenerateOptions, type LlmAdapter, type StreamEvent, type ToolUpdateMode } from 'dsh-llm'
import { lazyConnection, withIdleTimeout } from 'dsh-llm/http'
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions'
import { createClient } from './client.ts'
import { resolveConfig, type OpenAIConfig } from './config.ts'
import { OpenAIAdapterError } from './errors.ts'
import { cancelled, requestFailure, stalled, streamFailure } from './failures.ts'
import { buildChatRequest } from './request.ts'
import { ChatStreamReader } from './stream-reader.ts'

export const PROVIDER = 'openai'

/**
 * An `LlmAdapter` for one OpenAI-compatible endpoint. Each model's `toolUpdate` mode decides how tool
 * changes are projected (`projectToolUpdates`): `none` (the default but for `deepseek-flash`) sends the
 * effective tools; the other modes send `tool_addition` / `tool_removal` blocks in system-role messages,
 * and only requests that carry blocks get the `<toolUpdateBetaHeader>: <toolUpdateBeta>` header. The API key is read from the environment variable
 * named by `apiKeyEnv` at the first request (not at construction), so a missing key fails the request
 * that needs it, before anything is sent.
 */
export function createOpenAIAdapter(input: Partial<OpenAIConfig>): LlmAdapter {
  const config = resolveConfig(input)
  const modes = new Map(config.models.map((model) => [model.id, model.toolUpdate]))
  const modeOf = (model: string): ToolUpdateMode => modes.get(model) ?? 'none'
  const connect = lazyConnection(config, {
    owner: 'dsh-llm-openai',
    url: `${config.baseURL.replace(/\/+$/, '')}/chat/completions`,
    AdapterError: OpenAIAdapterError,
    createClient: (apiKey) => createClient(config, apiKey),
  })

  async function* stream(options: GenerateOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const { signal, model } = options
    const { client, site } = connect(model)
    if (signal?.aborted) throw cancelled(site)
    const { body, hasToolUpdates } = buildChatRequest(options, projectToolUpdates(options, modeOf(model)))
    const headers = hasToolUpdates && config.toolUpdateBeta ? { [config.toolUpdateBetaHeader]: config.toolUpdateBeta } : undefined
    // aborted by the caller's signal or by the idle timeout, whichever comes first
    const abandon = new AbortController()
    let chunks: AsyncIterable<ChatCompletionChunk>
    try {
      // The SDK's types know neither system-role tool-update blocks nor `defer_loading`.
      chunks = await client.chat.completions.create(body as unknown as ChatCompletionCreateParamsStreaming, {
        signal: signal ? AbortSignal.any([signal, abandon.signal]) : abandon.signal,
        ...headers && { headers },
      })
    } catch (error) {
      throw requestFailure(error, site, signal)
    }
    const reader = new ChatStreamReader()
    const onStall = () => {
      abandon.abort()
      return stalled(site, reader.received, config.idleTimeoutMs!)
    }
    try {
      for await (const chunk of withIdleTimeout(chunks, config.idleTimeoutMs!, onStall)) yield* reader.read(chunk)
    } catch (error) {
      throw streamFailure(error, site, reader.received, signal)
    }
    // The SDK ends the iteration quietly when the signal aborts mid-stream.
    if (signal?.aborted) throw cancelled(site)
    try {
      yield* reader.finish()
    } catch (error) {
      throw streamFailure(error, site, reader.received, signal)
    }
  }

  const windows = new Map(config.models.map((model) => [model.id, model.contextWindow]))
  return {
    provider: PROVIDER,
    models: config.models.map((model) => model.id),
    toolUpdate: modeOf,
    contextWindow: (model) => windows.get(model),
    stream,
  }
}
