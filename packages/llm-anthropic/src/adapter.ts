import type { MessageCreateParamsStreaming, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages'
import { projectToolUpdates, type GenerateOptions, type LlmAdapter, type StreamEvent, type ToolUpdateMode } from 'dsh-llm'
import { lazyConnection, withIdleTimeout } from 'dsh-llm/http'
import { createClient } from './client.ts'
import { resolveConfig, type AnthropicConfig } from './config.ts'
import { AnthropicAdapterError } from './errors.ts'
import { cancelled, requestFailure, stalled, streamFailure } from './failures.ts'
import { buildMessagesRequest } from './request.ts'
import { MessageStreamReader } from './stream-reader.ts'

export const PROVIDER = 'anthropic'

/**
 * An `LlmAdapter` for one Anthropic-Messages-compatible endpoint. Each model's `toolUpdate` mode decides
 * how tool changes are projected (`projectToolUpdates`); requests that carry `tool_addition` /
 * `tool_removal` blocks also carry the `anthropic-beta: <toolUpdateBeta>` header, others never do.
 * The API key is read from the environment variable named by `apiKeyEnv` at the first request.
 */
export function createAnthropicAdapter(input: Partial<AnthropicConfig>): LlmAdapter {
  const config = resolveConfig(input)
  const modes = new Map(config.models.map((model) => [model.id, model.toolUpdate]))
  const modeOf = (model: string): ToolUpdateMode => modes.get(model) ?? 'none'
  const connect = lazyConnection(config, {
    owner: 'dsh-llm-anthropic',
    url: `${config.baseURL.replace(/\/+$/, '')}/v1/messages`,
    AdapterError: AnthropicAdapterError,
    createClient: (apiKey) => createClient(config, apiKey),
  })

  async function* stream(options: GenerateOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const { signal, model } = options
    const { client, site } = connect(model)
    if (signal?.aborted) throw cancelled(site)
    const { body, hasToolUpdates } = buildMessagesRequest(options, projectToolUpdates(options, modeOf(model)), config.maxTokens)
    const headers = hasToolUpdates && config.toolUpdateBeta ? { 'anthropic-beta': config.toolUpdateBeta } : undefined
    // aborted by the caller's signal or by the idle timeout, whichever comes first
    const abandon = new AbortController()
    let events: AsyncIterable<RawMessageStreamEvent>
    try {
      // The SDK's types know neither system-role tool-update blocks nor every compatible server's extras.
      events = await client.messages.create(body as unknown as MessageCreateParamsStreaming, {
        signal: signal ? AbortSignal.any([signal, abandon.signal]) : abandon.signal,
        ...headers && { headers },
      })
    } catch (error) {
      throw requestFailure(error, site, signal)
    }
    const reader = new MessageStreamReader()
    const onStall = () => {
      abandon.abort()
      return stalled(site, reader.received, config.idleTimeoutMs!)
    }
    try {
      for await (const event of withIdleTimeout(events, config.idleTimeoutMs!, onStall)) yield* reader.read(event)
      // The SDK ends the iteration quietly when the signal aborts mid-stream.
      if (signal?.aborted) throw cancelled(site)
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
