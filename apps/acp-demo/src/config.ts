import { MAX_TIMER_MS, forwardConfig, type ConfigInput } from 'dsh-core'
import Schema from 'schemastery'
import { Config as SpineSchema, Harness, type Config as SpineConfig } from 'dsh-harness'
import { DEFAULT_PAGE_SIZE } from './session-list.ts'

/** The app's Config: the spine's keys (forwarded to the spine) plus how the agent presents itself. */
export interface AcpDemoConfig extends SpineConfig {
  /** `agentInfo.name` in the `initialize` response. */
  agentName: string
  /** `agentInfo.title`: what editors show in their agent menus. */
  agentTitle: string
  /** How long a session's first prompt waits for each MCP server its client passed to list its tools. */
  mcpStartupTimeoutMs: number
  /** Time limit of one call to a tool of such a server. */
  mcpCallTimeoutMs: number
  /** Sessions per `session/list` page. */
  sessionListPageSize: number
}

/** The intersection keeps the spine's `toolOrder` union, so an omitted `toolOrder` stays absent. */
export const Config: Schema<ConfigInput<AcpDemoConfig>, AcpDemoConfig> = Schema.intersect([
  SpineSchema,
  Schema.object({
    agentName: Schema.string().min(1).default('dsh-acp-demo').description('Agent name reported to the editor in initialize.'),
    agentTitle: Schema.string().min(1).default('DSH').description('Human-readable agent title reported to the editor.'),
    mcpStartupTimeoutMs: Schema.natural().min(1).max(MAX_TIMER_MS).default(Harness.mcpTimeouts.startupMs)
      .description('How long the first prompt of a session waits for each MCP server its client passed (session/new) to list its tools (ms); a slower one joins later.'),
    mcpCallTimeoutMs: Schema.natural().min(1).max(MAX_TIMER_MS).default(Harness.mcpTimeouts.callMs)
      .description('How long one call to a tool of such a server may take (ms).'),
    sessionListPageSize: Schema.natural().min(1).max(1000).default(DEFAULT_PAGE_SIZE)
      .description('Sessions per session/list page; a longer list is paged with nextCursor.'),
  }),
]) as Schema<ConfigInput<AcpDemoConfig>, AcpDemoConfig>

/** What the app hands to the spine: the keys its schema declares (none of the app's own); absent stays absent. */
export function spineConfig(config: AcpDemoConfig): SpineConfig {
  return forwardConfig<SpineConfig>(SpineSchema, config)
}
