import { randomUUID } from 'node:crypto'
import type { AvailableCommand, PromptResponse, SessionUpdate } from '@agentclientprotocol/sdk'
import { AgentLoopError, HarnessError } from 'dsh-harness'
import type { Agent, AgentUpdate, Harness } from 'dsh-harness'
import { AcpDemoError } from './errors.ts'
import { toSessionUpdate, type KindOf } from './updates.ts'

/** The slash commands an editor learns about through `available_commands_update` after `session/new`. */
export const AVAILABLE_COMMANDS: AvailableCommand[] = [
  { name: 'compact', description: 'Replace the conversation so far with a summary; the cached prompt prefix is kept.' },
  {
    name: 'side',
    description: 'Ask about the conversation in a side session; the main history, and so its cached prefix, is untouched.',
    input: { hint: 'a question about the conversation so far' },
  },
]

/** The command a prompt's text invokes (`/compact`, `/side QUESTION`), or undefined when the text is for the model. */
export type Command = { name: 'compact' } | { name: 'side'; question: string }

export function commandOf(text: string): Command | undefined {
  const trimmed = text.trim()
  if (trimmed === '/compact') return { name: 'compact' }
  const side = /^\/side(?:\s+([^]*))?$/.exec(trimmed)
  return side ? { name: 'side', question: side[1] ?? '' } : undefined
}

/**
 * Runs `/compact` for a `session/prompt`: one agent message chunk saying what happened, then `end_turn`.
 * A failed compaction is a failed prompt, with the compaction's own message.
 */
export async function runCompactCommand(agent: Agent, send: (update: SessionUpdate) => Promise<void>): Promise<PromptResponse> {
  const outcome = await agent.compact().catch((error) => {
    if (AgentLoopError.is(error, 'BUSY')) {
      throw new AcpDemoError('BUSY', `session "${agent.id}" is running a prompt turn; send /compact after it ends`, { sessionId: agent.id })
    }
    throw error
  })
  if (!outcome.ok) throw new AcpDemoError('TURN_FAILED', `compaction failed: ${outcome.error}`, { sessionId: agent.id })
  const text = `Compacted: the conversation through event ${outcome.throughSeq} is now a summary of ${outcome.summary.length} characters.`
  await send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } })
  return { stopReason: 'end_turn' }
}

/** What `/side` needs of the door. */
export interface SideCommandOptions {
  harness: Harness
  send: (update: SessionUpdate) => Promise<void>
  /** Aborted by `session/cancel` (and when the session or connection closes). */
  signal: AbortSignal
  kindOf?: KindOf
}

/**
 * Runs `/side QUESTION` for a `session/prompt` (`harness.side`): the side session's answer streams as agent
 * message chunks, its tool calls as tool calls (their ids prefixed with the side session's, so they never meet the
 * main turns'), then `end_turn`, or `cancelled` after `session/cancel`. The main history is untouched. No question,
 * a running turn, or a failed answer is a JSON-RPC error naming it.
 */
export async function runSideCommand(agent: Agent, question: string, options: SideCommandOptions): Promise<PromptResponse> {
  if (!/\S/.test(question)) {
    throw new AcpDemoError('INVALID_PARAMS', '/side needs a question, e.g. "/side what does this function return?"; the main conversation is not touched', { sessionId: agent.id })
  }
  // the child's tool-call ids, prefixed so they never meet the main turns' ids in the client's view
  const prefix = `side-${randomUUID()}/`
  let sending = Promise.resolve()
  const onUpdate = (update: AgentUpdate) => {
    const mapped = toSessionUpdate(update, undefined, options.kindOf)
    if (!mapped) return
    if ('toolCallId' in mapped) mapped.toolCallId = `${prefix}${mapped.toolCallId}`
    // the client may have left: the side session still ends balanced in its log
    sending = sending.then(() => options.send(mapped)).catch(() => {})
  }
  const answer = await options.harness.side(agent.id, question, { signal: options.signal, onUpdate }).catch((error) => {
    if (HarnessError.is(error, 'BUSY')) throw new AcpDemoError('BUSY', error.message, { sessionId: agent.id })
    throw error
  }).finally(() => sending)
  if (answer.reason === 'cancelled') return { stopReason: 'cancelled' }
  if (answer.reason !== 'done') {
    throw new AcpDemoError('TURN_FAILED', `side question failed (session ${answer.child}): ${answer.error ?? answer.reason}`, { sessionId: agent.id, child: answer.child })
  }
  return { stopReason: 'end_turn' }
}
