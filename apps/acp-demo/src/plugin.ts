import type { Context } from 'cordis'
import { forwardConfig } from 'dsh-core'
import Schema from 'schemastery'
import AgentSpine, { Config as SpineSchema, type SpineConfig } from 'dsh-agent-spine-demo'
import { AcpDemo } from './service.ts'

/** The app's Config: the spine's keys (forwarded to the spine) plus how the agent presents itself. */
export interface AcpDemoConfig extends SpineConfig {
  /** `agentInfo.name` in the `initialize` response. */
  agentName: string
  /** `agentInfo.title`: what editors show in their agent menus. */
  agentTitle: string
}

/** The intersection keeps the spine's `toolOrder` union, so an omitted `toolOrder` stays absent. */
export const Config: Schema<AcpDemoConfig> = Schema.intersect([
  SpineSchema,
  Schema.object({
    agentName: Schema.string().min(1).default('dsh-acp-demo').description('Agent name reported to the editor in initialize.'),
    agentTitle: Schema.string().min(1).default('DSH').description('Human-readable agent title reported to the editor.'),
  }),
]) as Schema<AcpDemoConfig>

export const name = 'acp-demo'

/** What the app hands to the spine: the keys its schema declares (none of the app's own); absent stays absent. */
export function spineConfigOf(config: AcpDemoConfig): SpineConfig {
  return forwardConfig<SpineConfig>(SpineSchema, config)
}

/** Mounts the spine, then the `acpDemo` service that serves ACP connections. Touches no process stdio. */
export async function apply(ctx: Context, config: AcpDemoConfig) {
  await ctx.plugin(AgentSpine, spineConfigOf(config))
  await ctx.plugin(AcpDemo, config)
}

const AcpDemoApp = { name, Config, apply }
export default AcpDemoApp
