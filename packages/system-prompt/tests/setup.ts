import { Context } from 'cordis'
import type { ToolSchema } from 'dsh-core'
import SystemPrompt, { type SystemPromptConfig } from '../src/index.ts'

export async function setup(config: Partial<SystemPromptConfig> & Record<string, unknown> = {}) {
  const ctx = new Context()
  await ctx.plugin(SystemPrompt, config as SystemPromptConfig)
  return ctx
}

export function tool(name: string, description = `the ${name} tool`): ToolSchema {
  return { name, description, parameters: { type: 'object', properties: { input: { type: 'string' } } } }
}

/** Loads a plugin that provides the given tools, and resolves once it is active. */
export async function provide(ctx: Context, name: string, schemas: ToolSchema[], knownNames?: string[]) {
  return ctx.plugin({
    name,
    inject: ['systemPrompt'],
    apply(ctx: Context) {
      ctx.systemPrompt.tools(() => ({ schemas, knownNames }))
    },
  })
}

export const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name)
