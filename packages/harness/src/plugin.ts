import type { Context } from 'cordis'
import { forwardConfig, isGone } from 'dsh-core'
import AgentLoop, { type AgentLoopConfig } from 'dsh-agent-loop'
import LlmRuntime from 'dsh-llm'
import ScriptedLlm from 'dsh-llm-scripted'
import { join, resolve } from 'node:path'
import SessionStore, { defaultSessionRoot, type SessionStoreConfig } from 'dsh-session'
import SystemPrompt, { type SystemPromptConfig } from 'dsh-system-prompt'
import ToolRuntime from 'dsh-tools'
import { McpService } from 'dsh-tools-mcp'
import { Config, type HarnessConfig } from './config.ts'
import { Harness } from './service.ts'

export const name = 'harness'

/** Mounts the owners (system prompt, tools, sessions, llm with the scripted model, the agent loop), then `ctx.harness`. */
export async function apply(ctx: Context, config: HarnessConfig) {
  // Each owner takes exactly the keys its own schema declares (read now, so a key added there is forwarded).
  await ctx.plugin(SystemPrompt, forwardConfig<SystemPromptConfig>(SystemPrompt.Config, config))
  await ctx.plugin(ToolRuntime, { timeoutMs: config.toolTimeoutMs })
  // `ctx.mcp`: the app file's MCP servers (a tools-mcp entry) and each agent's (the ACP door) connect through it
  await ctx.plugin(McpService)
  // The loop injects `sessions`, so with an external store it waits for that entry whatever the file order.
  if (config.sessionStore !== 'external') await ctx.plugin(SessionStore, forwardConfig<SessionStoreConfig>(SessionStore.Config, config))
  await ctx.plugin(LlmRuntime)
  if (config.scripted) await ctx.plugin(ScriptedLlm, { models: ['scripted-echo'], toolUpdate: 'none', ...scriptedCache(config) })
  await ctx.plugin(AgentLoop, forwardConfig<AgentLoopConfig>(AgentLoop.Config, config))
  // the agent tool (child agents): in every prefix unless the app file turns it off
  if (config.agentTool) await ctx.plugin({ name: 'harness:agent-tool', inject: ['agentLoop'], apply: (own: Context) => { own.effect(() => own.agentLoop.offerAgentTool()) } })
  // the app may have given up on this entry at its startup timeout and been disposed meanwhile
  if (isGone(ctx)) return
  // `harness` injects `agentLoop`, so with an external store it is offered once that store is
  await ctx.plugin(Harness, config)
}

/** The file of the emulated prompt cache of `scripted-echo`: beside the JSONL sessions it served; none when sessions are elsewhere. */
export const SCRIPTED_CACHE_FILE = 'scripted-echo.cache'

function scriptedCache(config: HarnessConfig): { cacheFile?: string } {
  if (config.sessionStore === 'external' || !config.persist) return {}
  return { cacheFile: join(config.persistenceRoot === undefined ? defaultSessionRoot() : resolve(config.persistenceRoot), SCRIPTED_CACHE_FILE) }
}

const HarnessPlugin = { name, Config, apply }
export default HarnessPlugin
