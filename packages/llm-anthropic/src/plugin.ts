import type { Context } from 'cordis'
import { AdapterPlugin } from 'dsh-llm'
import { createAnthropicAdapter } from './adapter.ts'
import { Config, type AnthropicConfig } from './config.ts'

/** Cordis plugin: serves `config.models` through one Anthropic-Messages-compatible endpoint via `ctx.llm`. */
export class AnthropicProvider extends AdapterPlugin {
  static readonly Config = Config

  constructor(ctx: Context, config: AnthropicConfig) {
    super(ctx, createAnthropicAdapter(config))
  }
}

export default AnthropicProvider
