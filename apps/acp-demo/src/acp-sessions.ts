import { HarnessError, type Harness } from 'dsh-harness'
import type { Agent } from 'dsh-harness'
import { AcpDemoError } from './errors.ts'
import type { SessionMcpServers } from './session-mcp.ts'
import { CREATED_EVENT } from './session-list.ts'

/** The DSH agents of one ACP connection, by session id (which is the agent id and the session-log id). */
export class AcpSessions {
  private readonly agents = new Map<string, Agent>()
  /** Per session: its running prompt turns, so closing it can wait until their ends are logged. */
  private readonly turns = new Map<string, Set<Promise<void>>>()
  private readonly waiting = new Map<string, Set<() => void>>()

  constructor(private readonly harness: Harness, private readonly servers: SessionMcpServers) {}

  /**
   * Reopens the stored session `sessionId` as this connection's agent of that id (`session/load`,
   * `session/resume`); fails
   * with UNKNOWN_SESSION when `stored` does not list it, and when this connection has it open already; with
   * BUSY when another process is writing it (a store that keeps one writer per session).
   */
  async load(sessionId: string, stored: readonly string[]): Promise<Agent> {
    if (this.agents.has(sessionId) || !stored.includes(sessionId)) {
      const why = this.agents.has(sessionId) ? 'is already open on this connection' : 'is not stored'
      throw new AcpDemoError('UNKNOWN_SESSION', `cannot load session "${sessionId}": it ${why}`, { sessionId })
    }
    let agent: Agent
    try {
      agent = await this.harness.openAgent({ kind: 'resume', id: sessionId })
    } catch (error) {
      // a store with one writer per session (PostgreSQL) refuses a session another process is writing
      if (!HarnessError.is(error, 'BUSY')) throw error
      // a fleet store names the holder: the client may ask it to release the session
      const { holder } = error.details
      throw new AcpDemoError('BUSY', `cannot load session "${sessionId}": ${error.message}`, { sessionId, ...holder !== undefined && { holder } })
    }
    this.agents.set(agent.id, agent)
    return agent
  }

  /**
   * Creates one DSH agent with its own new session, and logs its creation (with the client's `cwd`) before
   * the client hears of it, so a session that never gets a prompt can still be listed and loaded.
   */
  async open(cwd: string): Promise<Agent> {
    const agent = await this.harness.openAgent({ kind: 'new' }, { folder: { cwd, event: CREATED_EVENT } })
    this.agents.set(agent.id, agent)
    return agent
  }

  get(sessionId: string): Agent {
    const agent = this.agents.get(sessionId)
    if (agent) return agent
    const known = [...this.agents.keys()].map((id) => `"${id}"`).join(', ') || '(none; call session/new first)'
    throw new AcpDemoError('UNKNOWN_SESSION', `unknown session "${sessionId}"; sessions of this connection: ${known}`, { sessionId })
  }

  find(sessionId: string): Agent | undefined {
    return this.agents.get(sessionId)
  }

  /**
   * Waits for `ready` on behalf of a prompt of session `sessionId`; resolves `'cancelled'` instead when
   * the session is cancelled (or the connection closes) first.
   */
  async untilReady(sessionId: string, ready: Promise<unknown>): Promise<'ready' | 'cancelled'> {
    let cancel!: () => void
    const cancelled = new Promise<'cancelled'>((resolve) => { cancel = () => resolve('cancelled') })
    const waiters = this.waiting.get(sessionId) ?? new Set()
    this.waiting.set(sessionId, waiters.add(cancel))
    try {
      return await Promise.race([ready.then(() => 'ready' as const), cancelled])
    } finally {
      waiters.delete(cancel)
    }
  }

  /**
   * Runs `work` (a side question) with a signal that `session/cancel`, `session/close`, the connection's end and
   * `outer` (the prompt request's own) abort.
   */
  async cancellable<T>(sessionId: string, outer: AbortSignal, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController()
    const abort = () => controller.abort()
    const waiters = this.waiting.get(sessionId) ?? new Set()
    this.waiting.set(sessionId, waiters.add(abort))
    outer.addEventListener('abort', abort, { once: true })
    try {
      return await work(controller.signal)
    } finally {
      waiters.delete(abort)
      outer.removeEventListener('abort', abort)
    }
  }

  /** `session/cancel`: ends the prompts still waiting for readiness and side questions, and cancels the running turn. */
  cancel(sessionId: string): void {
    for (const cancel of this.waiting.get(sessionId) ?? []) cancel()
    this.agents.get(sessionId)?.cancel()
  }

  /** Resolves once no prompt turn of `sessionId` is running (at once when none is). */
  async idle(sessionId: string): Promise<void> {
    for (let turns = this.turns.get(sessionId); turns?.size; turns = this.turns.get(sessionId)) await Promise.all(turns)
  }

  /** Remembers a running turn of `sessionId`, so closing can wait until its end is in the session log. */
  track<T>(sessionId: string, turn: Promise<T>): Promise<T> {
    const settled = turn.then(() => {}, () => {})
    const turns = this.turns.get(sessionId) ?? new Set()
    this.turns.set(sessionId, turns.add(settled))
    settled.then(() => turns.delete(settled))
    return turn
  }

  /**
   * `session/close`: cancels what the session is doing (as `session/cancel`), waits until its turn's end is
   * logged, stops its MCP servers and releases its agent (its log stays stored, for a later load or resume).
   */
  async close(sessionId: string): Promise<void> {
    const agent = this.get(sessionId)
    this.agents.delete(sessionId)
    for (const cancel of this.waiting.get(sessionId) ?? []) cancel()
    agent.cancel()
    await Promise.all(this.turns.get(sessionId) ?? [])
    this.turns.delete(sessionId)
    await this.servers.close(sessionId)
    await this.harness.closeAgent(sessionId)
  }

  /**
   * Cancels every running turn, waits until each has logged its end (a cancelled turn closes its log a
   * few ticks after the abort), then stops each session's MCP servers and releases the agents. The session
   * logs are flushed and kept.
   */
  async closeAll(): Promise<void> {
    const agents = [...this.agents.values()]
    this.agents.clear()
    for (const waiters of this.waiting.values()) for (const cancel of waiters) cancel()
    for (const agent of agents) agent.cancel()
    await Promise.all([...this.turns.values()].flatMap((turns) => [...turns]))
    await this.servers.closeAll()
    await Promise.all(agents.map((agent) => this.harness.closeAgent(agent.id)))
  }
}
