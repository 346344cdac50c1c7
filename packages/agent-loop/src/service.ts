import { MAX_TIMER_MS, listNames, type ConfigInput } from 'dsh-core'
import { randomUUID } from 'node:crypto'
import { Context, Service } from 'cordis'
import Schema from 'schemastery'
import type {} from 'dsh-llm'
import type {} from 'dsh-session'
import { scopedContext } from 'dsh-system-prompt'
import type {} from 'dsh-tools'
import { Agent } from './agent.ts'
import { AGENT_TOOL, agentToolDefinition } from './agent-tool.ts'
import { AgentLoopError } from './errors.ts'
import { startKeepalive, type Keepalive } from './keepalive/start.ts'
import { PermissionPolicy, PermissionsSchema } from './permission-policy.ts'
import type { AgentLoopConfig, AgentUpdate } from './types.ts'

declare module 'cordis' {
  interface Context {
    agentLoop: AgentLoop
  }
  interface Events {
    /** Emitted (sync) for every live update of a running turn. */
    'agent/update'(agent: Agent, update: AgentUpdate): void
    /** Emitted (sync) when a turn ends with reason `error` or `step_limit`; carries the turn's message. */
    'agent/error'(agent: Agent, error: { turn: number; message: string }): void
  }
}

export interface CreateAgentOptions {
  /** Agent id; random when omitted. */
  id?: string
  /** Session to continue (loaded from disk when persisted) or create; defaults to the agent id. */
  sessionId?: string
  /** Model id; defaults to the loop's configured model. */
  model?: string
  /** The prompt scope the agent assembles in and the agent id its tools run as; its own id by default (a fork child: its parent's). */
  scope?: string
}

/** Agents, turns and steps: assemble → log the request header → call the model → run tools → repeat. */
export class AgentLoop extends Service {
  static inject = ['systemPrompt', 'tools', 'sessions', 'llm']

  static Config: Schema<ConfigInput<AgentLoopConfig>, AgentLoopConfig> = Schema.object({
    model: Schema.string().min(1).default('scripted-echo').description('Model id of new agents; an adapter must serve it.'),
    maxSteps: Schema.natural().min(1).default(16).description('Model calls per turn before the turn ends with reason step_limit.'),
    toolConcurrency: Schema.natural().min(1).default(4).description('Tool calls of one step that run at the same time.'),
    compactAt: Schema.number().min(0.05).max(1).default(0.8)
      .description('Share of the model\'s context window the next request may fill before the loop compacts the session first.'),
    compactionTimeoutMs: Schema.natural().min(1).max(MAX_TIMER_MS).default(120_000).description('Time limit of one compaction request, in milliseconds.'),
    cwd: Schema.string().description('Working directory told to the model as {{cwd}}; defaults to the process working directory.'),
    // const(undefined) first: an omitted policy stays absent (every call runs) instead of defaulting to ask
    permissions: Schema.union([Schema.const(undefined), PermissionsSchema])
      .description('Which tool calls run, which are asked (default: ask), which are refused; omitted, every call runs.'),
    maxChildren: Schema.natural().min(1).default(4).description('Child agents (forks, the agent tool) one agent may run at once.'),
  })

  private readonly agents = new Map<string, Agent>()
  /** Disposes each agent's own context (`agent.ctx`), a child plugin of the loop's. */
  private readonly contexts = new Map<Agent, () => unknown>()
  /** Ids whose agent is being created (its session is loading). */
  private readonly creating = new Set<string>()
  /** The loop's own context: agents use the services it injected, whoever created them. */
  private readonly home: Context
  private readonly permissions: PermissionPolicy | undefined
  /** The keepalive of this loop's agents (model entries turn it on; `useClock()` for benches and tests). */
  readonly keepalive: Keepalive
  private offered = false

  constructor(ctx: Context, public readonly config: AgentLoopConfig) {
    // checked before anything is registered: a bad pattern fails the plugin's start with one line
    const permissions = config.permissions === undefined ? undefined : new PermissionPolicy(config.permissions)
    super(ctx, 'agentLoop')
    this.home = ctx
    this.permissions = permissions
    this.keepalive = startKeepalive(ctx)
    ctx.systemPrompt.variable('model', (context) => context.model)
    ctx.systemPrompt.variable('cwd', (context) => context.cwd ?? this.cwd)
    // Disposal cancels running turns, refuses new ones (the app's tool sources go away meanwhile, and a
    // turn then would announce their removal) and waits until each has logged its end, so a store disposed
    // after the loop flushes balanced logs.
    ctx.effect(() => async () => {
      const agents = [...this.agents.values()]
      for (const agent of agents) agent.close()
      await Promise.all(agents.map((agent) => agent.idle()))
    }, 'agentLoop: end running turns')
  }

  /**
   * Offers the `agent` tool to every agent (agent-tool.ts): a call runs a child agent of the caller (`agent.fork()`)
   * and its final text is the result. The harness calls it unless its app file says `agentTool: false`. Returns the disposer.
   */
  offerAgentTool(): () => Promise<void> {
    const unregister = this.home.tools.register(agentToolDefinition)
    this.offered = true
    return async () => {
      this.offered = false
      await unregister()
    }
  }

  /** True when `name` is the offered `agent` tool (the loop runs its calls itself). */
  agentTool(name: string): boolean {
    return this.offered && name === AGENT_TOOL
  }

  get cwd(): string {
    return this.config.cwd ?? process.cwd()
  }

  /** Creates an agent with its own session (a persisted session with that id is resumed). */
  async createAgent(options: CreateAgentOptions = {}): Promise<Agent> {
    const id = options.id ?? randomUUID()
    if (this.agents.has(id) || this.creating.has(id)) throw new AgentLoopError('BUSY', `agent "${id}" already exists`)
    // Reserved before the first await, so two concurrent calls with one id cannot both pass the check.
    this.creating.add(id)
    try {
      const session = await this.home.sessions.openOrCreate(options.sessionId ?? id)
      // Two agents on one log would interleave their turns and number them twice.
      const holder = [...this.agents.values()].find((agent) => agent.session === session)
      if (holder) throw new AgentLoopError('BUSY', `session "${session.id}" is already used by agent "${holder.id}"`)
      const fiber = this.home.plugin({ name: `agent-loop:agent(${id})`, apply: () => {} })
      let agent: Agent
      try {
        // The defaults are the schema's: Cordis applied it to the config before the loop was built.
        agent = new Agent(this.home, scopedContext(fiber.ctx, id), id, session, {
          ...this.config, model: options.model ?? this.config.model, cwd: this.cwd, permissions: this.permissions, scope: options.scope ?? id,
        })
      } catch (error) {
        await fiber.dispose()
        throw error
      }
      this.agents.set(id, agent)
      this.contexts.set(agent, () => fiber.dispose())
      // A log cut off inside a turn was balanced as the agent attached: stored before anyone (a replay) shows
      // it. A store that refuses it is heard at the agent's next turn, which reopens the session.
      await agent.session.flushed().catch(() => {})
      return agent
    } finally {
      this.creating.delete(id)
    }
  }

  agent(id: string): Agent {
    const agent = this.agents.get(id)
    if (!agent) throw new AgentLoopError('UNKNOWN_AGENT', `no agent "${id}"; agents: ${listNames(this.agents.keys())}`)
    return agent
  }

  /** Forgets an agent once its cancelled turn has closed; its session stays on disk. */
  async removeAgent(id: string): Promise<void> {
    const agent = this.agents.get(id)
    if (!agent) return
    this.keepalive.disarm(id)
    agent.cancel()
    // The cancelled turn still closes its log; closing the session before that would let a reopen race it.
    await agent.idle()
    if (this.agents.get(id) === agent) this.agents.delete(id)
    // The agent's own context goes with it, and every registration made through agent.ctx.
    await this.contexts.get(agent)?.()
    this.contexts.delete(agent)
    await this.home.sessions.close(agent.session.id)
  }
}

export default AgentLoop
