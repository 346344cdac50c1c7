import { describe, expect, it } from 'vitest'
import { countBalanced, type LoggedEvent, loggedTurnTimes, modelTimes, unbalanced } from '../src/fleet/logs.ts'
import { fleetOptions } from '../src/fleet/options.ts'
import { quantile, slope } from '../src/fleet/stats.ts'

let seq = 0
const at = (ms: number) => new Date(Date.UTC(2026, 11, 6, 6, 0, 0, ms)).toISOString()
const event = (type: string, data: object, ms = 0): LoggedEvent => ({ seq: ++seq, time: at(ms), type, data })

/** One whole turn as the agent loop logs it: a step whose answer arrives `modelMs` after the step starts. */
function turn(n: number, startMs: number, modelMs: number, reason = 'done'): LoggedEvent[] {
  return [
    event('turn/start', { turn: n }, startMs),
    event('user/message', { turn: n, text: `turn ${n}` }, startMs),
    event('step/start', { turn: n, step: 1 }, startMs + 1),
    event('assistant/message', { turn: n, step: 1, text: 'ok', toolCalls: [] }, startMs + 1 + modelMs),
    event('step/end', { turn: n, step: 1 }, startMs + 2 + modelMs),
    event('turn/end', { turn: n, reason }, startMs + 3 + modelMs),
  ]
}

describe('the fleet bench counts what the restart left', () => {
  it('a log cut inside a turn is unbalanced until the reopen closes that turn as an error', () => {
    const whole = [...turn(1, 0, 100), ...turn(2, 200, 100)]
    expect(unbalanced(whole)).toBeUndefined()
    const cut = [...turn(1, 0, 100), ...turn(2, 200, 100).slice(0, 3)]
    expect(unbalanced(cut)).toBe('the log ends inside turn 2')
    const closed = [...cut, event('step/end', { turn: 2, step: 1 }), event('turn/end', { turn: 2, reason: 'error' }), ...turn(3, 900, 100)]
    expect(unbalanced(closed)).toBeUndefined()
    expect(unbalanced([...turn(1, 0, 1).slice(0, 2), ...turn(2, 5, 1)])).toBe('turn 2 started inside turn 1')

    const count = countBalanced(new Map([['a', whole], ['b', cut], ['c', closed]]))
    expect(count).toEqual({ sessions: 3, balanced: 2, errorTurns: 1, problems: { b: 'the log ends inside turn 2' } })
  })

  it('the model time of a turn is its steps from step/start to the answer, summed', () => {
    const twoSteps = [
      event('turn/start', { turn: 1 }, 0),
      event('step/start', { turn: 1, step: 1 }, 10),
      event('assistant/message', { turn: 1, step: 1 }, 60),
      event('step/end', { turn: 1, step: 1 }, 61),
      event('step/start', { turn: 1, step: 2 }, 70),
      event('assistant/message', { turn: 1, step: 2 }, 100),
      event('step/end', { turn: 1, step: 2 }, 101),
      event('turn/end', { turn: 1, reason: 'done' }, 102),
      ...turn(2, 200, 40).slice(0, 3),
    ]
    expect([...modelTimes(twoSteps)]).toEqual([[1, 80]])
    expect([...loggedTurnTimes(twoSteps)]).toEqual([[1, 102]])
  })

  it('quantiles by nearest rank, and the slope of RSS samples', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i)
    expect(quantile(values, 0.5)).toBe(50)
    expect(quantile(values, 0.99)).toBe(99)
    expect(quantile([], 0.5)).toBeNaN()
    expect(slope([{ x: 0, y: 10 }, { x: 1, y: 12 }, { x: 2, y: 14 }])).toBe(2)
  })

  it('reads its options and refuses a bad one in one line naming it and what is valid', () => {
    expect(fleetOptions(['--only', 'fleet', '--minutes', '30'])).toEqual({ sessions: 200, minutes: 30, modelMs: 100, intervalMs: 2000 })
    expect(() => fleetOptions(['--minutes', 'soon'])).toThrow('bench fleet: --minutes must be a number from 0.1 to 600, got "soon"')
    expect(() => fleetOptions(['--sessions'])).toThrow('bench fleet: --sessions must be a whole number from 2 to 1000, got null')
    expect(() => fleetOptions(['--sessions', '3'])).toThrow('bench fleet: --sessions must be even (split over two processes), got 3')
  })
})
