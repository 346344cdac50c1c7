/** One stored event as the fleet bench reads it back: `{seq, time, type, data}`. */
export interface LoggedEvent {
  seq: number
  time: string
  type: string
  data: any
}

/**
 * Whether a session log is balanced: every `turn/start` is closed by its `turn/end` and every `step/start`
 * by its `step/end`, properly nested, and the log does not end inside a turn. Returns why not, or undefined.
 */
export function unbalanced(events: readonly LoggedEvent[]): string | undefined {
  let turn = 0
  let step = 0
  for (const { type, data } of events) {
    if (type === 'turn/start') {
      if (turn) return `turn ${data.turn} started inside turn ${turn}`
      turn = data.turn
    } else if (type === 'step/start') {
      if (!turn || step) return `step ${data.step} started outside a turn or inside step ${step}`
      step = data.step
    } else if (type === 'step/end') {
      if (step !== data.step) return `step ${data.step} ended while step ${step || 'none'} was open`
      step = 0
    } else if (type === 'turn/end') {
      if (turn !== data.turn || step) return `turn ${data.turn} ended while turn ${turn || 'none'} step ${step || 'none'} was open`
      turn = 0
    }
  }
  return turn || step ? `the log ends inside turn ${turn}` : undefined
}

/** What the restart scenario counts over the stored logs: balanced ones, and turns closed as errors. */
export interface BalanceCount {
  sessions: number
  balanced: number
  /** Turns whose `turn/end` has reason `error` (the ones the restart cut, closed on reopen or by the loop). */
  errorTurns: number
  /** The first reason a log was not balanced, per session id. */
  problems: Record<string, string>
}

export function countBalanced(logs: ReadonlyMap<string, readonly LoggedEvent[]>): BalanceCount {
  const count: BalanceCount = { sessions: logs.size, balanced: 0, errorTurns: 0, problems: {} }
  for (const [id, events] of logs) {
    const problem = unbalanced(events)
    if (problem) count.problems[id] = problem
    else count.balanced++
    count.errorTurns += events.filter((event) => event.type === 'turn/end' && event.data.reason === 'error').length
  }
  return count
}

/**
 * The scripted model's own time per turn, from the log: for each step, the time from its `step/start` to
 * its `assistant/message` (the loop assembles the request, calls the adapter, and logs the answer when
 * its stream ends), summed over the turn's steps. Keyed by turn number; turns without an answer are left out.
 */
export function modelTimes(events: readonly LoggedEvent[]): Map<number, number> {
  const times = new Map<number, number>()
  let stepStart: number | undefined
  for (const { type, time, data } of events) {
    if (type === 'step/start') stepStart = Date.parse(time)
    else if (type === 'assistant/message' && stepStart !== undefined) {
      times.set(data.turn, (times.get(data.turn) ?? 0) + Date.parse(time) - stepStart)
      stepStart = undefined
    }
  }
  return times
}

/**
 * Each turn's span in the log, from its `turn/start` to its `turn/end` stamp, keyed by turn number: what the
 * agent loop took between those appends, without the prompt's way in, the final commit and the answer's way out.
 */
export function loggedTurnTimes(events: readonly LoggedEvent[]): Map<number, number> {
  const times = new Map<number, number>()
  let start: number | undefined
  for (const { type, time, data } of events) {
    if (type === 'turn/start') start = Date.parse(time)
    else if (type === 'turn/end' && start !== undefined) {
      times.set(data.turn, Date.parse(time) - start)
      start = undefined
    }
  }
  return times
}
