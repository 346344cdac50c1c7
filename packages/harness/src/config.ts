import { MAX_TIMER_MS, type ConfigInput } from 'dsh-core'
import Schema from 'schemastery'
import AgentLoop, { type AgentLoopConfig } from 'dsh-agent-loop'
import SessionStore, { type SessionStoreConfig } from 'dsh-session'
import SystemPrompt, { type SystemPromptConfig } from 'dsh-system-prompt'

/** The harness's Config: the owners' keys side by side; each owner receives the keys its schema declares. */
export interface HarnessConfig extends SystemPromptConfig, AgentLoopConfig, SessionStoreConfig {
  toolTimeoutMs: number
  /** Serve the offline scripted model (`scripted-echo`) beside any other adapter. */
  scripted: boolean
  /** `jsonl`: mount the JSONL store; `external`: another app-file entry (e.g. dsh-session-postgres) provides `sessions`. */
  sessionStore: 'jsonl' | 'external'
  /** Offer the `agent` tool (a call runs a child agent of the caller); `false` leaves it out of the prefix. */
  agentTool: boolean
}

/** The harness's Config as a type (the same name as its schema). */
export type Config = HarnessConfig

/**
 * The intersection of the owners' schemas. `toolOrder` keeps SystemPrompt's union with `undefined`, so
 * an omitted key stays absent here too instead of defaulting to `[]`.
 */
export const Config: Schema<ConfigInput<HarnessConfig>, HarnessConfig> = Schema.intersect([
  SystemPrompt.Config,
  AgentLoop.Config,
  SessionStore.Config,
  Schema.object({
    toolTimeoutMs: Schema.natural().min(1).max(MAX_TIMER_MS).default(30_000).description('Default time limit of one tool call, in milliseconds.'),
    scripted: Schema.boolean().default(true).description('Serve the offline scripted model scripted-echo.'),
    sessionStore: Schema.union(['jsonl', 'external']).default('jsonl')
      .description('jsonl: sessions in JSONL files (persistenceRoot); external: another entry of the app file provides them.'),
    agentTool: Schema.boolean().default(true).description('Offer the agent tool (child agents: fork or fresh); false leaves it out of every prefix.'),
  }),
]) as Schema<ConfigInput<HarnessConfig>, HarnessConfig>
