import type { Context } from 'cordis'
import AgentSpine from 'dsh-agent-spine-demo'
import { Config, spineConfig, type StdioDemoConfig } from './config.ts'
import { StdioDemo } from './service.ts'

export const name = 'stdio-demo'

/** Mounts the spine, then offers `ctx.stdioDemo` to the front door. */
export async function apply(ctx: Context, config: StdioDemoConfig) {
  await ctx.plugin(AgentSpine, spineConfig(config))
  await ctx.plugin(StdioDemo, config)
}

const StdioDemoPlugin = { name, Config, apply }
export default StdioDemoPlugin
