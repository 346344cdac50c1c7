import type { Context } from 'cordis'
import { isGone } from 'dsh-core'
import HarnessPlugin from 'dsh-harness'
import { Config, spineConfig, type AcpDemoConfig } from './config.ts'
import { AcpDemo } from './service.ts'

export const name = 'acp-demo'

/** Mounts the harness, then the `acpDemo` service that serves ACP connections. Touches no process stdio. */
export async function apply(ctx: Context, config: AcpDemoConfig) {
  await ctx.plugin(HarnessPlugin, spineConfig(config))
  // the app may have given up on this entry at its startup timeout and been disposed meanwhile
  if (isGone(ctx)) return
  await ctx.plugin(AcpDemo, config)
}

const AcpDemoApp = { name, Config, apply }
export default AcpDemoApp
