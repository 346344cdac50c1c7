import type { Agent, AgentLoop } from 'dsh-agent-loop'
import { AcpDemoError } from './errors.ts'

/** The DSH agents of one ACP connection, by session id (which is the agent id and the session-log id). */
export class AcpSessions {
  private readonly agents = new Map<string, Agent>()
  private readonly turns = new Set<Promise<void>>()

  constructor(private readonly loop: AgentLoop) {}

  /** Creates one DSH agent with its own new session. */
  async open(): Promise<Agent> {
    const agent = await this.loop.createAgent()
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

  /** Remembers a running turn, so `closeAll()` can wait until its end is in the session log. */
  track<T>(turn: Promise<T>): Promise<T> {
    const settled = turn.then(() => {}, () => {})
    this.turns.add(settled)
    settled.then(() => this.turns.delete(settled))
    return turn
  }

  /**
   * Cancels every running turn, waits until each has logged its end (a cancelled turn closes its log a
   * few ticks after the abort), then releases the agents. The session logs are flushed and kept.
   */
  async closeAll(): Promise<void> {
    const agents = [...this.agents.values()]
    this.agents.clear()
    for (const agent of agents) agent.cancel()
    await Promise.all(this.turns)
    await Promise.all(agents.map((agent) => this.loop.removeAgent(agent.id)))
  }
}
