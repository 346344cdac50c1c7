import { messageOf } from 'dsh-core'
import type { Session } from 'dsh-session'
import type { PermissionAsker } from './permission-gate.ts'
import type { AgentUpdate, TurnResult } from './types.ts'

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

/** Thrown inside a turn once its signal aborted; the turn ends with reason `cancelled`. */
export class TurnCancelled extends Error {}

/** A fresh controller that `outer` (the caller's signal) also aborts; `detach()` stops listening to `outer`. */
export function linkedController(outer: AbortSignal | undefined): { controller: AbortController; detach: () => void } {
  const controller = new AbortController()
  const forward = () => controller.abort()
  outer?.addEventListener('abort', forward, { once: true })
  if (outer?.aborted) controller.abort()
  return { controller, detach: () => outer?.removeEventListener('abort', forward) }
}

/**
 * Logs the end of a turn (the refused message, the step left open, `turn/end` with the result's reason) and
 * waits for the store. When the log refused a write (its file is gone, the disk is full) the turn is not on
 * disk, and that is the failure the caller must hear about: `result` becomes an error, not a rejection.
 */
export async function logTurnEnd(session: Session, result: TurnResult, open: { step: number; refusedSeq: number | undefined }): Promise<void> {
  const { turn } = result
  try {
    if (open.refusedSeq) session.append('user/refused', { turn, messageSeq: open.refusedSeq })
    if (open.step) session.append('step/end', { turn, step: open.step })
    session.append('turn/end', { turn, reason: result.reason, ...(result.reason === 'done' ? {} : { error: { message: result.error! } }) })
    await session.flushed()
  } catch (error) {
    result.reason = 'error'
    result.error = messageOf(error)
  }
}
