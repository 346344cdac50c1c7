import type { Context } from 'cordis'
import type { LlmAdapter } from 'dsh-llm'
import { createAnthropicAdapter } from './adapter.ts'
import { Config, type AnthropicConfig } from './config.ts'

/** Cordis plugin: serves `config.models` through one Anthropic-Messages-compatible endpoint via `ctx.llm`. */
export class AnthropicProvider {
  static readonly inject = ['llm']
  static readonly Config = Config

  /** The adapter this plugin registered; it is unregistered with the plugin. */
  readonly adapter: LlmAdapter

  constructor(ctx: Context, config: AnthropicConfig) {
    this.adapter = createAnthropicAdapter(config)
    ctx.llm.register(this.adapter)
  }
}

export default AnthropicProvider
