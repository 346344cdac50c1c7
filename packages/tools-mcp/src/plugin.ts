import type { Context } from 'cordis'
import type {} from 'dsh-tools'
import { Config, checkConfig, type ToolsMcpConfig } from './config.ts'
import { McpServerSet } from './server-set.ts'

export const name = 'tools-mcp'
export const inject = ['tools']
export { Config }

/** The effect label each MCP tool registration carries; `dsh-prompt inspect` reads the server from it. */
export function registrationLabel(tool: string, server: string): string {
  return `tools-mcp.register(${tool} from server ${JSON.stringify(server)})`
}

/**
 * Connects every enabled server in parallel and registers its tools as `mcp__<server>__<tool>`.
 * Resolves once each server has listed its tools, failed its first start, or passed its startup timeout,
 * so that an app boot waiting for its plugins waits for the first listing of every server.
 */
export async function apply(ctx: Context, config: ToolsMcpConfig): Promise<void> {
  const specs = checkConfig(config)
  const logger = ctx.logger('tools-mcp')
  const set = new McpServerSet(specs, {
    register: (definition, origin) => ctx.effect(() => ctx.tools.register(definition), registrationLabel(definition.name, origin.server)),
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
  ctx.effect(() => () => set.close(), 'tools-mcp servers')
  await set.start()
}

export default { name, inject, Config, apply }
