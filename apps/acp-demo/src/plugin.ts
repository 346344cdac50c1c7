import type { Context } from 'cordis'
import AgentSpine from 'dsh-agent-spine-demo'
import { Config, spineConfig, type AcpDemoConfig } from './config.ts'
import { AcpDemo } from './service.ts'

export const name = 'acp-demo'

/** Mounts the spine, then the `acpDemo` service that serves ACP connections. Touches no process stdio. */
export async function apply(ctx: Context, config: AcpDemoConfig) {
  await ctx.plugin(AgentSpine, spineConfig(config))
  await ctx.plugin(AcpDemo, config)
}

const AcpDemoApp = { name, Config, apply }
export default AcpDemoApp
