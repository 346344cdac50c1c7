import type { Context } from 'cordis'
import { AdapterPlugin } from 'dsh-llm'
import { requireApiKey } from 'dsh-llm/http'
import { createAnthropicAdapter } from './adapter.ts'
import { Config, type AnthropicConfig } from './config.ts'
import { AnthropicAdapterError } from './errors.ts'

/** Cordis plugin: serves `config.models` through one Anthropic-Messages-compatible endpoint via `ctx.llm`. */
export class AnthropicProvider extends AdapterPlugin {
  static readonly Config = Config

  constructor(ctx: Context, config: AnthropicConfig) {
    const adapter = createAnthropicAdapter(config)
    requireApiKey(config.apiKeyEnv, { owner: 'dsh-llm-anthropic', models: adapter.models, AdapterError: AnthropicAdapterError })
    super(ctx, adapter)
  }
}

export default AnthropicProvider
