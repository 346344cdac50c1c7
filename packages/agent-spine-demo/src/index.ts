import type { Context } from 'cordis'
import { MAX_TIMER_MS, forwardConfig, type ConfigInput } from 'dsh-core'
import Schema from 'schemastery'
import AgentLoop, { type AgentLoopConfig } from 'dsh-agent-loop'
import LlmRuntime from 'dsh-llm'
import ScriptedLlm from 'dsh-llm-scripted'
import { join, resolve } from 'node:path'
import SessionStore, { defaultSessionRoot, type SessionStoreConfig } from 'dsh-session'
import SystemPrompt, { type SystemPromptConfig } from 'dsh-system-prompt'
import ToolRuntime from 'dsh-tools'
import { McpService } from 'dsh-tools-mcp'

/** The spine's Config: the owners' keys side by side; each owner receives the keys its schema declares. */
export interface SpineConfig extends SystemPromptConfig, AgentLoopConfig, SessionStoreConfig {
  toolTimeoutMs: number
  /** Serve the offline scripted model (`scripted-echo`) beside any other adapter. */
  scripted: boolean
  /** `jsonl`: mount the JSONL store; `external`: another app-file entry (e.g. dsh-session-postgres) provides `sessions`. */
  sessionStore: 'jsonl' | 'external'
}

/**
 * The intersection of the owners' schemas. `toolOrder` keeps SystemPrompt's union with `undefined`, so
 * an omitted key stays absent here too instead of defaulting to `[]`.
 */
export const Config: Schema<ConfigInput<SpineConfig>, SpineConfig> = Schema.intersect([
  SystemPrompt.Config,
  AgentLoop.Config,
  SessionStore.Config,
  Schema.object({
    toolTimeoutMs: Schema.natural().min(1).max(MAX_TIMER_MS).default(30_000).description('Default time limit of one tool call, in milliseconds.'),
    scripted: Schema.boolean().default(true).description('Serve the offline scripted model scripted-echo.'),
    sessionStore: Schema.union(['jsonl', 'external']).default('jsonl')
      .description('jsonl: sessions in JSONL files (persistenceRoot); external: another entry of the app file provides them.'),
  }),
]) as Schema<ConfigInput<SpineConfig>, SpineConfig>

export const name = 'agent-spine-demo'

/** Mounts the spine: system prompt, tools, MCP servers, sessions, llm (with the scripted model) and the agent loop. */
export async function apply(ctx: Context, config: SpineConfig) {
  // Each owner takes exactly the keys its own schema declares (read now, so a key added there is forwarded).
  await ctx.plugin(SystemPrompt, forwardConfig<SystemPromptConfig>(SystemPrompt.Config, config))
  await ctx.plugin(ToolRuntime, { timeoutMs: config.toolTimeoutMs })
  // `ctx.mcp`: the app file's MCP servers (a dsh-tools-mcp entry) and those a front door connects for one agent
  await ctx.plugin(McpService)
  // The loop injects `sessions`, so with an external store it waits for that entry whatever the file order.
  if (config.sessionStore !== 'external') await ctx.plugin(SessionStore, forwardConfig<SessionStoreConfig>(SessionStore.Config, config))
  await ctx.plugin(LlmRuntime)
  if (config.scripted) await ctx.plugin(ScriptedLlm, { models: ['scripted-echo'], toolUpdate: 'none', ...scriptedCache(config) })
  await ctx.plugin(AgentLoop, forwardConfig<AgentLoopConfig>(AgentLoop.Config, config))
}

/** The file of the emulated prompt cache of `scripted-echo`: beside the JSONL sessions it served; none when sessions are elsewhere. */
export const SCRIPTED_CACHE_FILE = 'scripted-echo.cache'

function scriptedCache(config: SpineConfig): { cacheFile?: string } {
  if (config.sessionStore === 'external' || !config.persist) return {}
  return { cacheFile: join(config.persistenceRoot === undefined ? defaultSessionRoot() : resolve(config.persistenceRoot), SCRIPTED_CACHE_FILE) }
}

const AgentSpine = { name, Config, apply }
export default AgentSpine
