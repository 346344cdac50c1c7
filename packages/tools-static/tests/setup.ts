import { Context } from 'cordis'
import type { Message } from 'cordis'
import ToolRuntime from 'dsh-tools'
// dsh-system-prompt is not a dependency of this package (nothing in src needs it); see the README
import SystemPrompt from 'dsh-system-prompt'
import type { SystemPromptConfig } from 'dsh-system-prompt'
import ToolsStatic from '../src/index.ts'
import type { ToolsStaticConfig } from '../src/index.ts'

/** A root context with the real SystemPrompt and ToolRuntime, plus every error message logged in it. */
export async function setup(prompt: Partial<SystemPromptConfig> = {}) {
  const ctx = new Context()
  const errors: Message[] = []
  ctx.logger.exporter({ levels: { default: 0 }, export: (message) => errors.push(message) })
  await ctx.plugin(SystemPrompt, prompt as SystemPromptConfig)
  await ctx.plugin(ToolRuntime, {} as any)
  return { ctx, errors }
}

/** Loads tools-static with `config` (unchecked, so tests can pass wrong values); resolves once active. */
export function loadStatic(ctx: Context, config: unknown) {
  return ctx.plugin(ToolsStatic, config as ToolsStaticConfig)
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The tool names the model would see, in assembly order. */
export async function assembledNames(ctx: Context): Promise<string[]> {
  const assembly = await ctx.systemPrompt.assemble()
  return assembly.tools.map((tool) => tool.name)
}
