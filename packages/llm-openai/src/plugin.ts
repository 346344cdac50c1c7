import type { Context } from 'cordis'
import { AdapterPlugin } from 'dsh-llm'
import { createOpenAIAdapter } from './adapter.ts'
import { Config, type OpenAIConfig } from './config.ts'

/** Cordis plugin: serves `config.models` through one OpenAI-compatible endpoint via `ctx.llm`. */
export class OpenAIProvider extends AdapterPlugin {
  static readonly Config = Config

  constructor(ctx: Context, config: OpenAIConfig) {
    super(ctx, createOpenAIAdapter(config))
  }
}

export default OpenAIProvider
