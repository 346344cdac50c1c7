import type { Context } from 'cordis'
import type { ExecutableTool, ToolBatchDisposer } from 'dsh-tools'
import { Config, checkConfig, type ToolsMcpConfig } from './config.ts'
import { McpServerSet } from './server-set.ts'
import { sourceName, toSourceStatus } from './source-status.ts'

export const name = 'tools-mcp'
export const inject = ['tools']
export { Config }

/**
 * The effect label each MCP tool registration carries, for diagnostics only: the server is recorded as typed
 * data in the tool's origin (`tools.origin(name).server`), which is what inspection reads.
 */
export function registrationLabel(tool: string, server: string): string {
  return `tools-mcp.register(${tool} from server ${JSON.stringify(server)})`
}

/** The effect label of one listing's tools registered together: their names as a JSON list. */
export function batchRegistrationLabel(tools: readonly string[], server: string): string {
  return registrationLabel(JSON.stringify(tools), server)
}

/**
 * Registers one server's new tools in one `tools.registerMany()` call under one effect; each returned
 * disposer removes its tool, and the last one ends the effect, so re-listings leave no empty effects behind.
 */
function registerListing(ctx: Context, definitions: ExecutableTool[], server: string): (() => Promise<void>)[] {
  let batch: ToolBatchDisposer | undefined
  const end = ctx.effect(() => (batch = ctx.tools.registerMany(definitions, { server })), batchRegistrationLabel(definitions.map((tool) => tool.name), server))
  let live = definitions.length
  return batch!.each.map((dispose) => {
    let done = false
    return async () => {
      if (done) return
      done = true
      await dispose()
      if (--live === 0) await end()
    }
  })
}

/**
 * Connects every enabled server in parallel and registers its tools as `mcp__<server>__<tool>`.
 * Resolves once each server has listed its tools, failed its first start, or passed its startup timeout,
 * so that an app boot waiting for its plugins waits for the first listing of every server.
 */
export async function apply(ctx: Context, config: ToolsMcpConfig): Promise<void> {
  const specs = checkConfig(config)
  const logger = ctx.logger('tools-mcp')
  // Cordis lets a disposed plugin's apply() run to its end: a server that lists its tools after the app
  // began to stop (an editor that closed at once) must not try to register them, once per tool
  const stopping = () => ctx.fiber.uid === null
  const none = () => {}
  const set: McpServerSet = new McpServerSet(specs, {
    register: (definition, ref) => stopping() ? none : ctx.effect(() => ctx.tools.register(definition, { server: ref.server }), registrationLabel(definition.name, ref.server)),
    registerMany: (definitions, server) => stopping() ? definitions.map(() => none) : registerListing(ctx, definitions, server),
    // front doors show these to the person using the app (`tools/source`); a call to a down server's tool names it
    status: (status) => { if (!stopping()) ctx.tools.reportSource(toSourceStatus(status)) },
  }, {
    log: {
      info: (text) => logger.info(text),
      warn: (text) => logger.warn(text),
      error: (text) => logger.error(text),
      debug: (text) => logger.debug(text),
    },
    restartDelayMs: config.restartDelayMs,
    maxRestartDelayMs: config.maxRestartDelayMs,
  })
  ctx.effect(() => () => {
    for (const spec of specs) ctx.tools.forgetSource(sourceName(spec.name))
    return set.close()
  }, 'tools-mcp servers')
  await set.start()
}

export default { name, inject, Config, apply }
