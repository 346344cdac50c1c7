import type { Context } from 'cordis'
import type { LlmAdapter } from 'dsh-llm'
import { createOpenAIAdapter } from './adapter.ts'
import { Config, type OpenAIConfig } from './config.ts'

/** Cordis plugin: serves `config.models` through one OpenAI-compatible endpoint via `ctx.llm`. */
export class OpenAIProvider {
  static readonly inject = ['llm']
  static readonly Config = Config

  /** The adapter this plugin registered; it is unregistered with the plugin. */
  readonly adapter: LlmAdapter

  constructor(ctx: Context, config: OpenAIConfig) {
    this.adapter = createOpenAIAdapter(config)
    ctx.llm.register(this.adapter)
  }
}

export default OpenAIProvider
