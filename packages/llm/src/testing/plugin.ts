import { Context, type Plugin } from 'cordis'
import { LlmRuntime } from '../runtime.ts'

/** A fresh context with the `llm` service and `plugin` loaded with `config` exactly as given. */
export async function loadWithLlm(plugin: Plugin, config: unknown) {
  const ctx = new Context()
  await ctx.plugin(LlmRuntime)
  const fiber = await ctx.plugin(plugin, config)
  return { ctx, fiber }
}

/** The message `plugin` refuses `config` with (fails the test when it loads). */
export async function configRefusal(plugin: Plugin, config: Record<string, unknown>): Promise<string> {
  try {
    await loadWithLlm(plugin, config)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error(`expected ${JSON.stringify(config)} to be refused`)
}
