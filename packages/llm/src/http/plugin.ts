import type { Context } from 'cordis'
import type { ConfigInput } from 'dsh-core'
import type Schema from 'schemastery'
import { AdapterPlugin } from '../adapter-plugin.ts'
import { createHttpAdapter, type HttpAdapterDefinition } from './adapter.ts'
import type { HttpAdapterConfig, ResolvedHttpAdapterConfig } from './adapter-config.ts'
import { requireApiKey } from './connect.ts'

/**
 * The Cordis plugin class of an HTTP adapter: validates its config by `Config`, builds the adapter
 * (`createHttpAdapter`, its notices to the plugin's logger), fails the start when the key's variable is unset or empty, and serves the adapter's
 * models through `ctx.llm` until disposed. A package names it: `class OpenAIProvider extends httpAdapterPlugin(…) {}`.
 */
export function httpAdapterPlugin<C extends HttpAdapterConfig, R extends ResolvedHttpAdapterConfig>(
  definition: HttpAdapterDefinition<R, any, any, any, any>,
  Config: Schema<ConfigInput<C, 'models'>, C>,
) {
  return class HttpAdapterPlugin extends AdapterPlugin {
    static readonly Config = Config

    constructor(ctx: Context, config: C) {
      const logger = ctx.logger(definition.owner)
      const adapter = createHttpAdapter(definition, config, (message) => logger.warn(message))
      requireApiKey(config.apiKeyEnv, { owner: definition.owner, models: adapter.models })
      super(ctx, adapter)
    }
  }
}
