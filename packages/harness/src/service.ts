import { Context, Service } from 'cordis'
import { isGone, type CodedError, type ToolSchema } from 'dsh-core'
import { noticeLocale, toolChangeNotice, type Agent } from 'dsh-agent-loop'
import { coldCacheNotice } from 'dsh-cache-break-detector'
import { dshStateFolder, makeFolder, summarizeSessions, type SessionFleet, type SessionHolder } from 'dsh-session'
import type { AssembleContext } from 'dsh-system-prompt'
import { renderPrompt } from 'dsh-system-prompt/bytes'
import type { ToolKind, ToolSourceStatus } from 'dsh-tools'
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_STARTUP_TIMEOUT_MS, type McpService } from 'dsh-tools-mcp'
import type { HarnessConfig } from './config.ts'
import { HarnessError, isBusy } from './errors.ts'
import { askSide, watchChildren, type ChildUpdate, type SideAnswer, type SideOptions } from './side.ts'

/** What a `prompt-cache/cold` says (the info `coldCacheNotice` words). */
type ColdCache = Parameters<typeof coldCacheNotice>[0]

/** What `ctx.mcp.connect()` returns, and one server entry it takes. */
type McpAttachment = ReturnType<McpService['connect']>
type ServerEntry = Parameters<McpService['connect']>[1][string]

/** One stored session, as `summarizeSessions` lists it. */
type SessionSummary = Awaited<ReturnType<typeof summarizeSessions>>[number]

declare module 'cordis' {
  interface Context {
    harness: Harness
  }
}

/** Which agent to open: one on a new session, the stored session `id`, or the latest stored one that can be continued. */
export type AgentChoice = { kind: 'new' } | { kind: 'resume'; id: string } | { kind: 'continue' }

export interface OpenAgentOptions {
  /**
   * The working folder of the client that opens a new session (an absolute path), logged as the session's first
   * event `{ cwd }` of type `event` (the ACP door's `acp/session`) and flushed before the agent is returned, so a
   * session that never gets a prompt is still listed with its folder. Not used when resuming.
   */
  folder?: { cwd: string; event: string }
}

/**
 * The production composition root as a service, under the ctx key `harness`: what a front door needs to open
 * agents, list and preview sessions, and hear what happens (cold caches, tool sources). A door adds only its
 * protocol on top.
 */
export class Harness extends Service {
  static inject = ['agentLoop', 'systemPrompt', 'sessions', 'llm', 'tools', 'mcp']
  /** dsh-tools-mcp's time limits (ms) of a server entry that sets none: listing its tools at startup, one tool call. */
  static readonly mcpTimeouts = { startupMs: DEFAULT_STARTUP_TIMEOUT_MS, callMs: DEFAULT_CALL_TIMEOUT_MS } as const

  constructor(ctx: Context, public readonly config: HarnessConfig) {
    super(ctx, 'harness')
  }

  /** The language of a door's notices: `zh` when the first set of `LC_ALL`, `LC_MESSAGES`, `LANG` starts with `zh`, else `en`. */
  readonly noticeLocale = noticeLocale
  /** The one-line notice of a `tools-changed` update, in a locale (default `en`). */
  readonly toolChangeNotice = toolChangeNotice
  /** The one-line notice of a cold cache (`onColdCache`'s info), in a locale (default `en`). */
  readonly coldCacheNotice = coldCacheNotice
  /** DSH's own state folder `<state>/dsh` (next to the sessions), where a door keeps its own files. */
  readonly stateFolder = dshStateFolder
  /** Creates a folder and its missing parents; a read-only file system throws the first missing folder's own error. */
  readonly makeFolder = makeFolder

  /** Resolves when the app is ready: the startup barrier `ctx.readiness` of a booted app; at once in a bare Context. */
  ready(): Promise<unknown> {
    return this.ctx.get('readiness', false)?.ready ?? Promise.resolve()
  }

  /** Where the sessions are kept (a folder, or a database without its password), for listings and errors. */
  get sessionsLocation(): string {
    return this.ctx.sessions.location
  }

  /** The working folder the agents' tools run in (`cwd` of the config, else the process's). */
  get cwd(): string {
    return this.ctx.agentLoop.cwd
  }

  /**
   * An agent on the configured model. `new`: on a new session (its id is the agent id). `resume`: on the stored
   * session `id`, which becomes the agent id; `UNKNOWN_SESSION` when the store does not list it. `continue`: on the
   * most recent stored session that no other process is writing and that is not broken (else the most recent);
   * `NO_SESSION` when none is stored. A session another writer holds fails with `BUSY`, its message the store's.
   */
  async openAgent(choice: AgentChoice = { kind: 'new' }, options: OpenAgentOptions = {}): Promise<Agent> {
    if (choice.kind === 'new') return this.openNew(options)
    const id = choice.kind === 'resume' ? await this.storedId(choice.id) : await this.latestId()
    try {
      return await this.ctx.agentLoop.createAgent({ id })
    } catch (error) {
      if (!isBusy(error)) throw error
      // a fleet store names the holder in its error's details; the door passes it on
      const { holder } = (error as CodedError<string, { holder?: SessionHolder }>).details
      throw new HarnessError('BUSY', (error as Error).message, { details: { sessionId: id, ...holder && { holder } }, cause: error })
    }
  }

  /** Releases an agent: its turn cancelled and ended, its session log flushed and kept. */
  closeAgent(agentId: string): Promise<void> {
    return this.ctx.agentLoop.removeAgent(agentId)
  }

  /** The ids of the stored sessions. */
  storedSessionIds(): Promise<string[]> {
    return this.ctx.sessions.list()
  }

  /**
   * The stored sessions, most recent first, each with `busy` (another process writes it: recognised by the
   * store error's class and code) or `broken`. `keep` names event types whose latest occurrence each summary keeps.
   */
  sessionSummaries(keep: readonly string[] = []): Promise<SessionSummary[]> {
    return summarizeSessions(this.ctx.sessions, keep)
  }

  /** The model ids the app's adapters serve, in their registration order. */
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

  /**
   * What the agent's requests cost in USD: the sum of its session's `request/cost` records (dsh-cache-break-detector
   * logs one per response of a model with a price), of turn `turn` when given, else of the whole session (a resumed
   * one included). `billed` against `noCache` (the same tokens with no cache); `emulated` when any figure is the
   * offline model's. Undefined when none is logged: a model without a price, or no detector entry — tokens only.
   */
  cost(agent: Agent, turn?: number): { billed: number; noCache: number; emulated: boolean } | undefined {
    let sum: { billed: number; noCache: number; emulated: boolean } | undefined
    for (const event of agent.session.events()) {
      if (event.type !== 'request/cost' || (turn !== undefined && event.data.turn !== turn)) continue
      sum ??= { billed: 0, noCache: 0, emulated: false }
      sum.billed += event.data.billed
      sum.noCache += event.data.noCache
      if (event.data.emulated) sum.emulated = true
    }
    return sum
  }

  /** The context window of the agent's model in tokens, as its adapter declares it; undefined when it declares none. */
  contextWindow(agent: Agent): number | undefined {
    try {
      return this.ctx.llm.contextWindow(agent.model)
    } catch {
      // a model no adapter serves any more (the app is being disposed): no window to tell
      return undefined
    }
  }

  /**
   * Calls `listener` each time an agent's prompt cache goes cold (dsh-cache-break-detector's `prompt-cache/cold`:
   * idle past its model's cache TTL); only for `agent` when given. Nothing happens without a detector entry.
   * Returns the disposer.
   */
  onColdCache(listener: (agent: Agent, info: ColdCache) => void, agent?: Agent): () => void {
    return this.ctx.on('prompt-cache/cold', (cold, info) => { if (agent === undefined || cold === agent) listener(cold, info) })
  }

  /**
   * A side question (`/side`) to the open agent `agentId`: a child session in mode `side` answers it from the
   * conversation as it stands and the parent's history is untouched. Resolves `{ child, text, reason, error? }`
   * (the child's session id, its answer, how its turn ended). `HarnessError`: `INVALID_QUESTION` (no text),
   * `UNKNOWN_AGENT` (not open here), `BUSY` (the agent is running a turn); the fork's own refusals pass through.
   */
  side(agentId: string, question: string, options: SideOptions = {}): Promise<SideAnswer> {
    return askSide(this.ctx, agentId, question, options)
  }

  /**
   * Calls `listener({ child, call?, update })` for each live update of each child session the agent `parentId`
   * runs (its `agent` tool calls carry the `call` id), in order, each once the child's events before it are
   * stored. Returns the disposer.
   */
  onChildUpdate(parentId: string, listener: (update: ChildUpdate) => void): () => void {
    return watchChildren(this.ctx, parentId, listener)
  }

  /** Calls `listener` on each tool-source status (a server failed, exited or is back); returns the disposer. */
  onSourceStatus(listener: (status: ToolSourceStatus) => void): () => void {
    return this.ctx.on('tools/source', listener)
  }

  /** The tool sources down now: the app's own, and with `agentId` also that agent's; none once the app is being disposed. */
  downSources(agentId?: string): ToolSourceStatus[] {
    if (isGone(this.ctx)) return []
    return this.ctx.tools.downSources(agentId === undefined ? {} : { agentId })
  }

  /** A tool's ACP kind as agent `agentId` sees it; `other` once the app is being disposed. */
  toolKind(name: string, agentId: string): ToolKind {
    return isGone(this.ctx) ? 'other' : this.ctx.tools.kind(name, { agentId })
  }

  /**
   * Connects MCP servers for one agent alone (`ctx.mcp.connect`): their tools are that agent's, registered in one
   * batch per listing; `dispose()` closes them. Entries are app-file server entries; a bad one is a
   * `ToolsMcpError` `INVALID_CONFIG` naming it in `details.server`, and nothing starts.
   */
  readonly attachMcp = (agentId: string, servers: Record<string, ServerEntry>): McpAttachment => this.ctx.mcp.connect(agentId, servers)

  /** The checks of `attachMcp`, starting nothing (`ctx.mcp.check`). */
  readonly checkMcp = (servers: Record<string, ServerEntry>): void => { this.ctx.mcp.check(servers) }

  /** The session store's fleet view when the store is shared by several processes (PostgreSQL); else undefined. */
  get fleet(): SessionFleet | undefined {
    return this.ctx.sessions.fleet
  }

  private async openNew(options: OpenAgentOptions): Promise<Agent> {
    const agent = await this.ctx.agentLoop.createAgent()
    if (options.folder) {
      agent.session.append(options.folder.event, { cwd: options.folder.cwd })
      await agent.session.flushed()
    }
    return agent
  }

  private async storedId(id: string): Promise<string> {
    const stored = await this.storedSessionIds()
    if (stored.includes(id)) return id
    throw new HarnessError('UNKNOWN_SESSION', `no stored session ${JSON.stringify(id)}; ${stored.length} stored`, { details: { sessionId: id, stored: stored.length } })
  }

  private async latestId(): Promise<string> {
    const stored = await this.sessionSummaries()
    if (!stored.length) throw new HarnessError('NO_SESSION', 'there is no stored session yet', { details: { stored: 0 } })
    return (stored.find((summary) => !summary.busy && summary.broken === undefined) ?? stored[0]!).id
  }
}

// the same context the agent loop assembles with, so the answers match the next request's bytes
function assembleContext(agent: Agent): AssembleContext {
  return { scope: agent.id, model: agent.model, cwd: agent.settings.cwd, agentId: agent.id }
}
