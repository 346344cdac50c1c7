import type { Context } from 'cordis'
import { Config, type ToolsMcpConfig } from './config.ts'
import type {} from './service.ts'

export const name = 'tools-mcp'
/** `mcp` is the service (`McpService`) the composition root mounts; the plugin is one of its users. */
export const inject = ['tools', 'mcp']
export { Config }
export { batchRegistrationLabel, registrationLabel } from './registration.ts'

/**
 * Connects the app file's servers for every agent through `ctx.mcp.connect(null, …)`, the path per-agent
 * servers take too. Resolves once each server has listed its tools, failed its first start, or passed its
 * startup timeout, so that an app boot waiting for its plugins waits for the first listing of every server.
 * Disposing the plugin closes its servers and removes their tools.
 */
export async function apply(ctx: Context, config: ToolsMcpConfig): Promise<void> {
  const { servers, restartDelayMs, maxRestartDelayMs } = config
  await ctx.mcp.connect(null, servers, { restartDelayMs, maxRestartDelayMs }).started
}

export default { name, inject, Config, apply }
