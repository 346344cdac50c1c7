import type { SessionUpdate, StopReason } from '@agentclientprotocol/sdk'
import type { AgentUpdate, Harness, NoticeLocale } from 'dsh-harness'
import type { ToolKind, TurnEndReason } from './harness-types.ts'

/** The notices of a client that presents them (`session.notices`): their locale, and the harness that words them. */
export interface Notices {
  locale: NoticeLocale
  harness: Harness
}

/** The ACP kind of a tool by its name, as the tool runtime knows it (`other` when nothing is known). */
export type KindOf = (name: string) => ToolKind

/**
 * The `session/update` an editor sees for one live update of a DSH turn, or `undefined` for updates ACP
 * has no place for (usage without a context size, the turn end that the prompt response itself reports).
 * A tool-list change becomes a `notice` when `notices` is given (the client advertised `session.notices`).
 * A tool call carries the tool's kind from `kindOf`.
 */
export function toSessionUpdate(update: AgentUpdate, notices?: Notices, kindOf: KindOf = () => 'other'): SessionUpdate | undefined {
  switch (update.type) {
    case 'tools-changed':
      // ACP lets an agent send notices only to clients that advertised `session.notices`
      if (!notices) return undefined
      return { sessionUpdate: 'notice', severity: 'info', title: notices.harness.toolChangeNotice(update, notices.locale) } as SessionUpdate
    case 'text':
      return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: update.delta } }
    case 'tool-call':
      // the loop starts every call of a step as soon as it reports them, so they are in progress already
      return {
        sessionUpdate: 'tool_call',
        toolCallId: update.id,
        title: update.name,
        name: update.name,
        kind: kindOf(update.name),
        status: 'in_progress',
        rawInput: update.arguments,
      }
    case 'tool-result':
      return {
        sessionUpdate: 'tool_call_update',
        toolCallId: update.id,
        status: update.isError ? 'failed' : 'completed',
        content: [{ type: 'content', content: { type: 'text', text: update.output } }],
        rawOutput: update.output,
      }
    default:
      return undefined
  }
}

/** The ACP stop reason of a turn that ended without failing; `error` has none (it is a JSON-RPC error). */
export function stopReasonOf(reason: Exclude<TurnEndReason, 'error'>): StopReason {
  switch (reason) {
    case 'done': return 'end_turn'
    case 'cancelled': return 'cancelled'
    case 'step_limit': return 'max_turn_requests'
  }
}
