import type { Context } from 'cordis'
import { CodedError, oneLine } from 'dsh-core'
import type { Agent, AgentUpdate } from 'dsh-agent-loop'
import { HarnessError } from './errors.ts'

/** What `harness.side()` takes beside the question. */
export interface SideOptions {
  /** Cancels the side question (its child's turn ends `cancelled`; the parent is not touched). */
  signal?: AbortSignal
  /** The child's live updates (its text, its tool calls), each once the events before it are stored. */
  onUpdate?: (update: AgentUpdate) => void
}

/** How a side question ended: the child's session id, its answer, its turn's end reason (and message). */
export type SideAnswer = Awaited<ReturnType<Agent['fork']>>

/** How long a side question's description (its listing title) may be. */
const DESCRIPTION_CHARS = 60

/**
 * A side question to the agent `agentId`: a child in mode `side` (`agent.fork()`), which answers from the
 * conversation as it stands and leaves the parent's history untouched, so the parent's next request is the bytes
 * it would have been without it. Refused while the parent runs a turn (the conversation is then not as it stands
 * between turns), for an agent not open here, and for a question without text.
 */
export async function askSide(ctx: Context, agentId: string, question: string, options: SideOptions = {}): Promise<SideAnswer> {
  if (typeof question !== 'string' || !/\S/.test(question)) {
    throw new HarnessError('INVALID_QUESTION', `a side question needs text, got ${JSON.stringify(question)}; ask e.g. "/side what does this function return?"`, { details: { sessionId: agentId } })
  }
  const agent = openedAgent(ctx, agentId)
  if (agent.status === 'running') {
    throw new HarnessError('BUSY', `session "${agentId}" is running a turn; ask the side question once it ends (it forks the conversation as it stands between turns)`, { details: { sessionId: agentId } })
  }
  return agent.fork({
    mode: 'side',
    instruction: question,
    description: oneLine(question, DESCRIPTION_CHARS),
    ...options.signal && { signal: options.signal },
    ...options.onUpdate && { onUpdate: options.onUpdate },
  })
}

/** One update of a child session running for `parent`, and which call of the parent asked for it. */
export interface ChildUpdate {
  /** The child's session id (`<parent>~<n>`). */
  child: string
  /** The parent's `agent` tool call that started the child; absent for a side question. */
  call?: string
  update: AgentUpdate
}

/**
 * Calls `listener` with each update of every child the agent `parentId` starts (its `agent` tool calls, its side
 * questions), in order, each once the child's events before it are stored. Returns the disposer.
 */
export function watchChildren(ctx: Context, parentId: string, listener: (update: ChildUpdate) => void): () => void {
  const chains = new Map<Agent, Promise<void>>()
  // each agent's link, read once from the first event of its log (null: not a child of this parent)
  const links = new WeakMap<Agent, { call?: string } | null>()
  return ctx.on('agent/update', (agent, update) => {
    let link = links.get(agent)
    if (link === undefined) {
      const first = agent.session.event(1)
      link = first?.type === 'fork/parent' && first.data.parent === parentId ? { ...first.data.call !== undefined && { call: first.data.call } } : null
      links.set(agent, link)
    }
    if (!link) return
    const item: ChildUpdate = { child: agent.id, ...link, update }
    // a store that refused the child's events holds its updates back, as a turn's own delivery does
    const delivered = (chains.get(agent) ?? Promise.resolve())
      .then(() => agent.session.written())
      .then(() => listener(item))
      .catch(() => {})
    chains.set(agent, delivered)
    if (update.type === 'turn-end') void delivered.then(() => { if (chains.get(agent) === delivered) chains.delete(agent) })
  })
}

function openedAgent(ctx: Context, agentId: string): Agent {
  try {
    return ctx.agentLoop.agent(agentId)
  } catch (error) {
    if (!CodedError.is(error, 'UNKNOWN_AGENT')) throw error
    throw new HarnessError('UNKNOWN_AGENT', `no open session "${agentId}" to ask a side question of; open or resume it first`, { details: { sessionId: agentId }, cause: error })
  }
}
