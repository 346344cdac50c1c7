import type { Context } from 'cordis'
import type { LlmAdapter } from './types.ts'

/**
 * Base of the class plugins that serve one adapter: registers it with `ctx.llm`, so it is unregistered
 * with the plugin. A subclass sets `static Config` and passes the adapter its config builds.
 */
export abstract class AdapterPlugin {
  static readonly inject = ['llm']

  /** The adapter this plugin registered; it is unregistered with the plugin. */
  readonly adapter: LlmAdapter

  constructor(ctx: Context, adapter: LlmAdapter) {
    this.adapter = adapter
    ctx.llm.register(adapter)
  }
}
