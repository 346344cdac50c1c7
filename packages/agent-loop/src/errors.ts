export type AgentLoopErrorCode = 'BUSY' | 'STEP_LIMIT' | 'CANCELLED' | 'INVALID_PROMPT' | 'UNKNOWN_AGENT' | 'RECONSTRUCTION'

/** The one error class of dsh-agent-loop. */
export class AgentLoopError extends Error {
  override name = 'AgentLoopError'
  constructor(public readonly code: AgentLoopErrorCode, message: string) {
    super(message)
  }
}
