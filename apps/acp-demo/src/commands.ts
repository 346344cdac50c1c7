import type { AvailableCommand, PromptResponse, SessionUpdate } from '@agentclientprotocol/sdk'
import { AgentLoopError } from 'dsh-harness'
import type { Agent } from 'dsh-harness'
import { AcpDemoError } from './errors.ts'

/** The slash commands an editor learns about through `available_commands_update` after `session/new`. */
export const AVAILABLE_COMMANDS: AvailableCommand[] = [
  { name: 'compact', description: 'Replace the conversation so far with a summary; the cached prompt prefix is kept.' },
]

/** The command a prompt's text invokes (`/compact`), or undefined when the text is for the model. */
export function commandOf(text: string): 'compact' | undefined {
  return text.trim() === '/compact' ? 'compact' : undefined
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
