import type { PermissionAsker } from './permission-gate.ts'
import type { AgentUpdate } from './types.ts'

/**
 * One running turn as the parts of a step see it: its number, the step it is on (0 between turns, as
 * for a manual compaction), the signal that cancels it, and where its live updates go.
 */
export interface Turn {
  readonly turn: number
  step: number
  readonly signal: AbortSignal
  notify(update: AgentUpdate): void
  /** Asks the front door whether a tool call may run (`PromptOptions.askPermission`); absent when no one can answer. */
  readonly askPermission?: PermissionAsker
}
