import type { Context } from 'cordis'
import type { ConfigInput } from 'dsh-core'
import type Schema from 'schemastery'
import { AdapterPlugin } from '../adapter-plugin.ts'
import { createHttpAdapter, type HttpAdapterDefinition } from './adapter.ts'
import type { HttpAdapterConfig, ResolvedHttpAdapterConfig } from './adapter-config.ts'
import { requireApiKey } from './connect.ts'

/**
 * The Cordis plugin class of an HTTP adapter: validates its config by `Config`, builds the adapter
 * (`createHttpAdapter`, its notices to the plugin's logger), fails the start when the key's variable is unset or empty
 * (except in an app booted for inspection, which calls no model: `ctx.readiness.inspection` of `dsh-app-boot`), and serves the adapter's
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
      // an inspection (dsh-prompt) never calls a model: the key is still read, and required, at a request
      if (!bootedForInspection(ctx)) requireApiKey(config.apiKeyEnv, { owner: definition.owner, models: adapter.models })
      super(ctx, adapter)
    }
  }
}

/**
 * True in an app `dsh-app-boot` booted for inspection (`boot({ inspection: true })`, as `dsh-prompt` does): its
 * startup barrier `ctx.readiness` says so. Read by name, so this package needs no dependency on the boot glue.
 */
function bootedForInspection(ctx: Context): boolean {
  const readiness = ctx.get('readiness', false) as { inspection?: unknown } | undefined
  return readiness?.inspection === true
}
