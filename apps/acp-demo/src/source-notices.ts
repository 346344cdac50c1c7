import type { SessionUpdate } from '@agentclientprotocol/sdk'
import type { ToolSourceStatus } from './harness-types.ts'

/** Where the front door hears of tool sources (MCP servers) failing, exiting and coming back. */
export interface SourceFeed {
  /** The sources down now that agent `agentId` sees (the app's own, and its session's). */
  down(agentId: string): ToolSourceStatus[]
  /** Calls `listener` on every status from now on; returns the disposer. */
  watch(listener: (status: ToolSourceStatus) => void): () => void
}

/**
 * The `session/update` that shows a tool source's outage or return: a `notice` (warning, or info for a
 * return) to a client that presents notices, else an `agent_message_chunk` with the line in parentheses
 * on a paragraph of its own, which every client shows.
 */
export function sourceNoticeUpdate(status: ToolSourceStatus, notices: boolean): SessionUpdate {
  if (notices) {
    return { sessionUpdate: 'notice', severity: status.event === 'reconnected' ? 'info' : 'warning', title: status.message } as SessionUpdate
  }
  return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `(${status.message})\n\n` } }
}

/**
 * Sends source statuses to the sessions of one connection: a status for every agent to each session, one
 * of a session's own server to that session. While a session's turn runs its notices wait, and go out when
 * the turn ends, before the prompt's response: a notice never lands inside the model's streamed answer.
 */
export class SourceNotices {
  private readonly sessions = new Map<string, { queue: ToolSourceStatus[]; busy: number }>()
  private readonly stop: () => void

  constructor(private readonly feed: SourceFeed, private readonly send: (sessionId: string, status: ToolSourceStatus) => Promise<void>) {
    this.stop = feed.watch((status) => {
      for (const [sessionId] of this.sessions) {
        if (status.agentId === undefined || status.agentId === sessionId) void this.deliver(sessionId, status)
      }
    })
  }

  /** A session joins (new, loaded or resumed): it hears the outages that are on now, then every status. */
  async open(sessionId: string): Promise<void> {
    this.sessions.set(sessionId, { queue: [], busy: 0 })
    for (const status of this.feed.down(sessionId)) await this.deliver(sessionId, status)
  }

  close(sessionId: string): void {
    this.sessions.delete(sessionId)
  }

  /** Runs a turn of `sessionId` with its notices held until the turn is over. */
  async during<T>(sessionId: string, turn: () => Promise<T>): Promise<T> {
    const state = this.sessions.get(sessionId)
    if (state) state.busy++
    try {
      return await turn()
    } finally {
      if (state && --state.busy === 0) {
        for (const status of state.queue.splice(0)) await this.send(sessionId, status)
      }
    }
  }

  dispose(): void {
    this.stop()
    this.sessions.clear()
  }

  private async deliver(sessionId: string, status: ToolSourceStatus): Promise<void> {
    const state = this.sessions.get(sessionId)
    if (!state) return
    if (state.busy) state.queue.push(status)
    else await this.send(sessionId, status)
  }
}
