export type AgentLoopErrorCode = 'BUSY' | 'STEP_LIMIT' | 'CANCELLED' | 'INVALID_PROMPT' | 'UNKNOWN_AGENT' | 'RECONSTRUCTION' | 'CONTEXT_FULL'

/** The one error class of dsh-agent-loop. */
export class AgentLoopError extends Error {
  override name = 'AgentLoopError'
  constructor(public readonly code: AgentLoopErrorCode, message: string) {
    super(message)
  }
}

/** A thrown value as one line of text, whatever was thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  return typeof error === 'string' ? error : JSON.stringify(error) ?? String(error)
}
