import type { Context } from 'cordis'
import Schema from 'schemastery'
import { TOOL_NAME } from 'dsh-tools'
import type {} from 'dsh-tools'
import { ToolsStaticError } from './errors.ts'

/** One tool as the config lists it. */
export interface StaticTool {
  name: string
  description: string
  /** JSON Schema of the arguments, `type: 'object'` at the root. */
  parameters: Record<string, any>
  /** What a call returns; by default `<name> ok <arguments as JSON>`. */
  result?: string
  /** Milliseconds after the plugin starts before the tool is registered. */
  delayMs: number
  shouldDefer?: boolean
}

export interface ToolsStaticConfig {
  tools: StaticTool[]
}

export const name = 'tools-static'
export const inject = ['tools']

const StaticTool: Schema<StaticTool> = Schema.object({
  name: Schema.string().required().description(`Tool name; must match ${TOOL_NAME}.`),
  description: Schema.string().required().description('What the model reads about the tool.'),
  parameters: Schema.dict(Schema.any()).default({ type: 'object', properties: {} })
    .description('JSON Schema of the arguments, with type "object" at the root.'),
  result: Schema.string().description('The text every call returns; default "<name> ok <arguments as JSON>".'),
  delayMs: Schema.natural().default(0).description('Register the tool this many milliseconds after the plugin starts.'),
  shouldDefer: Schema.boolean().description('Hide the tool from the model until it is revealed.'),
})

export const Config: Schema<ToolsStaticConfig> = Schema.object({
  tools: Schema.array(StaticTool).description('The tools to register.'),
})

/** Catches what the schema cannot: names providers reject, duplicates, non-object parameters. */
function checkTools(tools: readonly StaticTool[]): void {
  const seen = new Set<string>()
  tools.forEach((tool, index) => {
    const where = `tools-static: tools[${index}]`
    if (!TOOL_NAME.test(tool.name)) {
      throw new ToolsStaticError('INVALID_TOOL_NAME', `${where}: name ${JSON.stringify(tool.name)} must match ${TOOL_NAME}`)
    }
    if (seen.has(tool.name)) {
      throw new ToolsStaticError('DUPLICATE_TOOL', `${where}: tool "${tool.name}" is listed twice`)
    }
    seen.add(tool.name)
    if (tool.parameters.type !== 'object') {
      const got = JSON.stringify(tool.parameters.type) ?? 'undefined'
      throw new ToolsStaticError('INVALID_PARAMETERS', `${where}: tool "${tool.name}" needs parameters with type "object" at the root, got type ${got}`)
    }
  })
}

/** Registers each configured tool after its own delay; pending delays are cancelled on dispose. */
export function apply(ctx: Context, config: ToolsStaticConfig): void {
  checkTools(config.tools)
  for (const tool of config.tools) {
    const register = () => ctx.tools.register({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      execute: (args: unknown) => tool.result ?? `${tool.name} ok ${JSON.stringify(args)}`,
      ...tool.shouldDefer === undefined ? {} : { shouldDefer: tool.shouldDefer },
    })
    if (tool.delayMs === 0) {
      register()
      continue
    }
    ctx.effect(() => {
      const timer = setTimeout(() => {
        // nothing awaits a timer: a refused registration (e.g. a name another plugin took) is logged
        try {
          register()
        } catch (error) {
          ctx.logger.error(error)
        }
      }, tool.delayMs)
      return () => clearTimeout(timer)
    }, `tools-static delay(${tool.name})`)
  }
}

export default { name, inject, Config, apply }
