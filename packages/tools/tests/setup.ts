import { Context } from 'cordis'
import SystemPrompt, { type SystemPromptConfig } from 'dsh-system-prompt'
import { expect } from 'vitest'
import ToolRuntime, { type ToolChange, type ExecutableTool, type ToolRuntimeConfig } from '../src/index.ts'
import { ToolsError } from '../src/errors.ts'

/** A root context with the real SystemPrompt and ToolRuntime loaded. */
export async function setup(config: Partial<ToolRuntimeConfig> & Record<string, unknown> = {}, prompt: Partial<SystemPromptConfig> = {}) {
  const ctx = new Context()
  await ctx.plugin(SystemPrompt, prompt as SystemPromptConfig)
  await ctx.plugin(ToolRuntime, config as ToolRuntimeConfig)
  return ctx
}

/** A small valid tool that echoes its `input` argument. */
export function tool(name: string, extra: Partial<ExecutableTool> = {}): ExecutableTool {
  return {
    name,
    description: `the ${name} tool`,
    parameters: { type: 'object', properties: { input: { type: 'string' } } },
    execute: (args: { input?: string }) => args.input ?? '',
    ...extra,
  }
}

/** Loads a plugin that registers the given tools; resolves to its fiber once active. */
export async function plugin(ctx: Context, name: string, tools: ExecutableTool[]) {
  return ctx.plugin({
    name,
    inject: ['tools'],
    apply(ctx: Context) {
      for (const definition of tools) ctx.tools.register(definition)
    },
  })
}

/** Records every `tools/change` event. */
export function recordChanges(ctx: Context): ToolChange[] {
  const changes: ToolChange[] = []
  ctx.on('tools/change', (change) => { changes.push(change) })
  return changes
}

export const names = (tools: readonly { name: string }[]) => tools.map((tool) => tool.name)

/** The `ToolsError` that `run` throws (fails the test when it throws nothing or something else). */
export function toolError(run: () => unknown): ToolsError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ToolsError)
    return error as ToolsError
  }
  throw new Error('expected a ToolsError')
}
