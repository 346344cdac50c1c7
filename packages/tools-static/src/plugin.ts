import { MAX_TIMER_MS, type ConfigInput } from 'dsh-core'
import type { Context } from 'cordis'
import Schema from 'schemastery'
import { TOOL_KINDS, TOOL_NAME, type ToolKind } from 'dsh-tools'
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
  /** Milliseconds the plugin's start takes before it registers the tool (the app's startup waits for it). */
  delayMs: number
  /** Milliseconds after the app is ready before the tool is registered: a mid-session addition. */
  afterReadyMs?: number
  shouldDefer?: boolean
  /** With `shouldDefer`: revealed as soon as it is registered (seen by the model, declared deferred). */
  revealed?: boolean
  /** What the tool does, as an ACP tool kind (`read`, `edit`, …); front doors show it, the model never sees it. */
  kind?: ToolKind
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
  delayMs: Schema.natural().max(MAX_TIMER_MS).default(0)
    .description('Part of the startup: register the tool this many milliseconds after the plugin starts; the app is ready only after it.'),
  afterReadyMs: Schema.natural().max(MAX_TIMER_MS)
    .description('A mid-session addition: register the tool this many milliseconds after the app is ready (instead of during startup).'),
  shouldDefer: Schema.boolean().description('Hide the tool from the model until it is revealed.'),
  revealed: Schema.boolean()
    .description('With shouldDefer: reveal the tool as soon as it is registered; the model sees it, declared with deferred loading where the route supports it.'),
  kind: Schema.string().description(`What the tool does, as an ACP tool kind: ${TOOL_KINDS.join(', ')}. ACP clients read it (acpx approves read and search by default); the model never sees it.`) as Schema<ToolKind>,
})

export const Config: Schema<ConfigInput<ToolsStaticConfig>, ToolsStaticConfig> = Schema.object({
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
    if (tool.afterReadyMs !== undefined && tool.delayMs > 0) {
      throw new ToolsStaticError('CONFLICTING_DELAYS', `${where}: tool "${tool.name}" sets both delayMs (${tool.delayMs}, during startup) and afterReadyMs (${tool.afterReadyMs}, after ready); keep one`)
    }
    if (tool.revealed !== undefined && tool.shouldDefer !== true) {
      throw new ToolsStaticError('REVEAL_WITHOUT_DEFER', `${where}: tool "${tool.name}" sets revealed without shouldDefer: true; only a deferred tool is revealed`)
    }
    if (tool.kind !== undefined && !(TOOL_KINDS as readonly string[]).includes(tool.kind)) {
      throw new ToolsStaticError('INVALID_KIND', `${where}: tool "${tool.name}" has kind ${JSON.stringify(tool.kind)}; the ACP tool kinds are ${TOOL_KINDS.join(', ')}`)
    }
    if (tool.parameters.type !== 'object') {
      const got = JSON.stringify(tool.parameters.type) ?? 'undefined'
      throw new ToolsStaticError('INVALID_PARAMETERS', `${where}: tool "${tool.name}" needs parameters with type "object" at the root, got type ${got}`)
    }
  })
}

/**
 * Registers each configured tool: at once, after its `delayMs` as part of this plugin's start (the
 * returned promise, which an app's startup barrier waits for), or `afterReadyMs` after the app is ready.
 * Pending delays are cancelled on dispose.
 */
// async on purpose: cordis calls a plain `function` with `new`, which drops the promise it returns
export async function apply(ctx: Context, config: ToolsStaticConfig): Promise<void> {
  checkTools(config.tools)
  const register = (tool: StaticTool) => {
    ctx.tools.register({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
      execute: (args: unknown) => tool.result ?? `${tool.name} ok ${JSON.stringify(args)}`,
      ...tool.shouldDefer === undefined ? {} : { shouldDefer: tool.shouldDefer },
      ...tool.kind === undefined ? {} : { kind: tool.kind },
    })
    if (tool.revealed) ctx.tools.reveal(tool.name)
  }
  const during = config.tools.filter((tool) => tool.afterReadyMs === undefined && tool.delayMs > 0)
  const after = config.tools.filter((tool) => tool.afterReadyMs !== undefined)
  for (const tool of config.tools) {
    if (tool.afterReadyMs === undefined && tool.delayMs === 0) register(tool)
  }
  // the timers are set before the first await, so every delay starts when the plugin does
  const startup = Promise.all(during.map((tool) => startupDelay(ctx, tool.delayMs).then((finished) => {
    if (finished) register(tool)
  }))).then(() => {})
  if (after.length) {
    const readiness = ctx.get('readiness', false)
    const schedule = () => { for (const tool of after) scheduleAfterReady(ctx, tool, () => register(tool)) }
    // without an app's startup barrier (a bare Context), "ready" is this plugin's own start
    if (readiness) readiness.afterReady(ctx, schedule)
    else if (!during.length) schedule()
    else ctx.effect(() => {
      let live = true
      startup.then(() => { if (live) schedule() }, () => {})
      return () => { live = false }
    }, 'tools-static: after its start')
  }
  await startup
}

/** Resolves `true` after `ms`, or `false` as soon as the plugin is disposed, so disposal never waits for a start it cancels. */
function startupDelay(ctx: Context, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      stop()
      resolve(true)
    }, ms)
    // effects of a starting plugin run only after its start; a disposal during it shows up as this event
    const stop = ctx.on('internal/plugin', (fiber) => {
      if (fiber !== ctx.fiber || fiber.uid !== null) return
      clearTimeout(timer)
      stop()
      resolve(false)
    })
  })
}

function scheduleAfterReady(ctx: Context, tool: StaticTool, register: () => void): void {
  ctx.effect(() => {
    const timer = setTimeout(() => {
      // nothing awaits this timer: a refused registration (e.g. a name another plugin took) is logged
      try {
        register()
      } catch (error) {
        ctx.logger.error(error)
      }
    }, tool.afterReadyMs)
    return () => clearTimeout(timer)
  }, `tools-static afterReady(${tool.name})`)
}

export default { name, inject, Config, apply }
