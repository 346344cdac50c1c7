import type { SessionEvent } from './events.ts'

/** A tool call of the open turn still waiting for its result. */
export interface PendingCall {
  id: string
  step: number
  name: string
}

/** The turn a log ends inside (the process stopped mid-turn): its number, open step (0 when none) and calls without a result. */
export interface OpenTurn {
  turn: number
  step: number
  pending: readonly PendingCall[]
}

/** How many turns the log started, and the one it ends inside, if any. */
export interface TurnsView {
  started: number
  open: OpenTurn | undefined
}

/** Incremental count of started turns, tracking the last one until its `turn/end`. */
export class TurnFold {
  /** How many log events this fold has consumed. */
  position = 0
  private started = 0
  private open: { turn: number; step: number; pending: Map<string, PendingCall> } | undefined

  apply(event: SessionEvent): void {
    if (event.type === 'turn/start') {
      this.started++
      this.open = { turn: event.data.turn, step: 0, pending: new Map() }
      return
    }
    const open = this.open
    if (!open) return
    if (event.type === 'turn/end') this.open = undefined
    else if (event.type === 'step/start') open.step = event.data.step
    else if (event.type === 'step/end') open.step = 0
    else if (event.type === 'tool/call') {
      const { id, step, name } = event.data
      open.pending.set(id, { id, step, name })
    } else if (event.type === 'tool/result') open.pending.delete(event.data.id)
  }

  value(): TurnsView {
    const open = this.open
    return { started: this.started, open: open && { turn: open.turn, step: open.step, pending: [...open.pending.values()] } }
  }
}
