import type { Context } from 'cordis'
import { isGone } from 'dsh-core'
import HarnessPlugin from 'dsh-harness'
import { Config, spineConfig, type StdioDemoConfig } from './config.ts'
import { StdioDemo } from './service.ts'

export const name = 'stdio-demo'

/** Mounts the harness, then offers `ctx.stdioDemo` to the front door. */
export async function apply(ctx: Context, config: StdioDemoConfig) {
  await ctx.plugin(HarnessPlugin, spineConfig(config))
  // the app may have given up on this entry at its startup timeout and been disposed meanwhile
  if (isGone(ctx)) return
  await ctx.plugin(StdioDemo, config)
}

const StdioDemoPlugin = { name, Config, apply }
export default StdioDemoPlugin
