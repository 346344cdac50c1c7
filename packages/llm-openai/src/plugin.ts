import type { Context } from 'cordis'
import { AdapterPlugin } from 'dsh-llm'
import { requireApiKey } from 'dsh-llm/http'
import { createOpenAIAdapter } from './adapter.ts'
import { Config, type OpenAIConfig } from './config.ts'
import { OpenAIAdapterError } from './errors.ts'

/** Cordis plugin: serves `config.models` through one OpenAI-compatible endpoint via `ctx.llm`. */
export class OpenAIProvider extends AdapterPlugin {
  static readonly Config = Config

  constructor(ctx: Context, config: OpenAIConfig) {
    const adapter = createOpenAIAdapter(config)
    requireApiKey(config.apiKeyEnv, { owner: 'dsh-llm-openai', models: adapter.models, AdapterError: OpenAIAdapterError })
    super(ctx, adapter)
  }
}

export default OpenAIProvider
