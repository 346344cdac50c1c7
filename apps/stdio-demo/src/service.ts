import type { ToolSchema } from 'dsh-core'
import { Context, Service } from 'cordis'
import type { Agent } from 'dsh-agent-loop'
import type {} from 'dsh-session'
import type {} from 'dsh-llm'
import type { ToolSourceStatus } from 'dsh-tools'
import type { ColdCache } from 'dsh-cache-break-detector'
import type { AssembleContext } from 'dsh-system-prompt'
import { renderPrompt } from 'dsh-system-prompt/bytes'
import type { StdioDemoConfig } from './config.ts'
import { summarizeSessions, type SessionSummary } from './sessions.ts'

declare module 'cordis' {
  interface Context {
    stdioDemo: StdioDemo
  }
}

/**
 * What the front door (`main`) needs from a booted app, under the ctx key `stdioDemo`: the parsed config,
 * an agent, and the two inspection commands. It never touches process streams.
 */
export class StdioDemo extends Service {
  static inject = ['agentLoop', 'systemPrompt', 'sessions', 'llm', 'tools']

  constructor(ctx: Context, public readonly config: StdioDemoConfig) {
    super(ctx, 'stdioDemo')
  }

  /** An agent on the configured model: with a new session, or resuming the stored session `sessionId`. */
  createAgent(sessionId?: string): Promise<Agent> {
    return this.ctx.agentLoop.createAgent(sessionId === undefined ? {} : { sessionId })
  }

  /** Where the sessions are kept (a folder, or a database without its password), for listings and errors. */
  get sessionsLocation(): string {
    return this.ctx.sessions.location
  }

  /** The stored sessions, most recent first (`--sessions`, `--continue`). */
  storedSessions(): Promise<SessionSummary[]> {
    return summarizeSessions(this.ctx.sessions)
  }

  /**
   * Calls `listener` each time `agent`'s prompt cache goes cold (dsh-cache-break-detector's `prompt-cache/cold`:
   * idle past its model's cache TTL). Nothing happens without a dsh-cache-break-detector entry. Returns the disposer.
   */
  onColdCache(agent: Agent, listener: (info: ColdCache) => void): () => void {
    return this.ctx.on('prompt-cache/cold', (cold, info) => { if (cold === agent) listener(info) })
  }

  /** Calls `listener` on each tool-source status (an MCP server failed, exited or is back); returns the disposer. */
  watchSources(listener: (status: ToolSourceStatus) => void): () => void {
    return this.ctx.on('tools/source', listener)
  }

  /** The tool sources that are down now. */
  downSources(): ToolSourceStatus[] {
    return this.ctx.tools.downSources()
  }

  /** The model ids the app's adapters serve (`/model`), in their registration order. */
  models(): string[] {
    return this.ctx.llm.models()
  }

  /** The tools as the agent's next request would declare them, in canonical order. */
  async tools(agent: Agent): Promise<ToolSchema[]> {
    return (await this.ctx.systemPrompt.assemble(assembleContext(agent))).tools
  }

  /** The system prompt as the agent's next request would carry it. */
  async systemPrompt(agent: Agent): Promise<string> {
    return renderPrompt(await this.ctx.systemPrompt.assemble(assembleContext(agent)))
  }
}

// the same context the agent loop assembles with, so the answers match the next request's bytes
function assembleContext(agent: Agent): AssembleContext {
  return { scope: agent.id, model: agent.model, cwd: agent.settings.cwd, agentId: agent.id }
}

export default StdioDemo
