import { Context, type Plugin } from 'cordis'
import LlmRuntime from 'dsh-llm'

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

/** The part of the tools service `toolsPlugin` uses; dsh-llm does not depend on dsh-tools. */
interface ToolRegistrar {
  register(tool: { name: string; description: string; parameters: object; execute: () => string }): unknown
}

/**
 * A plugin (for loop tests through an adapter) that registers one tool per name through the `tools` service,
 * each taking an optional `path` string and answering `<name> ok`.
 */
export function toolsPlugin(name: string, tools: readonly string[]) {
  return {
    name,
    inject: ['tools'],
    apply(ctx: Context) {
      const registry = (ctx as unknown as { tools: ToolRegistrar }).tools
      for (const tool of tools) {
        registry.register({ name: tool, description: `The ${tool} tool.`, parameters: { type: 'object', properties: { path: { type: 'string' } } }, execute: () => `${tool} ok` })
      }
    },
  }
}
