import type { Context } from 'cordis'
import type Schema from 'schemastery'
import { AdapterPlugin } from '../adapter-plugin.ts'
import type { LlmAdapter } from '../types.ts'
import type { HttpAdapterConfig } from './adapter-config.ts'
import { requireApiKey } from './connect.ts'

/**
 * The Cordis plugin class of an HTTP adapter: validates `config` by `Config`, builds the adapter with
 * `create`, fails the start when the key's variable is unset or empty, and serves the adapter's models
 * through `ctx.llm` until disposed. An adapter package names it: `class OpenAIProvider extends httpAdapterPlugin(…) {}`.
 */
export function httpAdapterPlugin<C extends HttpAdapterConfig>(owner: string, Config: Schema<C>, create: (config: C) => LlmAdapter) {
  return class HttpAdapterPlugin extends AdapterPlugin {
    static readonly Config = Config

    constructor(ctx: Context, config: C) {
      const adapter = create(config)
      requireApiKey(config.apiKeyEnv, { owner, models: adapter.models })
      super(ctx, adapter)
    }
  }
}
