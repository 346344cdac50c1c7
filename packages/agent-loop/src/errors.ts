import { CodedError } from 'dsh-core'

/** Every way the agent loop refuses a call; tests and callers switch on `code`. */
export type AgentLoopErrorCode = 'BUSY' | 'INVALID_PROMPT' | 'UNKNOWN_AGENT' | 'CONTEXT_FULL' | 'INVALID_CONFIG' | 'INVALID_FORK' | 'FORK_LIMIT'

/** The one error class of dsh-agent-loop. */
export class AgentLoopError extends CodedError<AgentLoopErrorCode> {
  static override readonly marker = 'dsh-agent-loop'
  override name = 'AgentLoopError'
}
