import { describe, expect, it } from 'vitest'
import { Session } from '../src/index.ts'

describe('turns()', () => {
  it('counts started turns and tracks the open one until its turn/end', () => {
    const session = new Session('s')
    expect(session.turns()).toEqual({ started: 0, open: undefined })
    session.append('turn/start', { turn: 1 })
    session.append('step/start', { turn: 1, step: 1 })
    session.append('tool/call', { turn: 1, step: 1, id: 'a', name: 'read', arguments: {} })
    session.append('tool/call', { turn: 1, step: 1, id: 'b', name: 'grep', arguments: {} })
    session.append('tool/result', { turn: 1, step: 1, id: 'a', name: 'read', output: 'x', isError: false })
    expect(session.turns()).toEqual({ started: 1, open: { turn: 1, step: 1, pending: [{ id: 'b', step: 1, name: 'grep' }] } })
    session.append('tool/result', { turn: 1, step: 1, id: 'b', name: 'grep', output: 'y', isError: false })
    session.append('step/end', { turn: 1, step: 1 })
    expect(session.turns().open).toEqual({ turn: 1, step: 0, pending: [] })
    session.append('turn/end', { turn: 1, reason: 'done' })
    expect(session.turns()).toEqual({ started: 1, open: undefined })
  })
})

describe('closeOpenTurn()', () => {
  it('logs a result for each waiting call, the open step end and the turn end, in that order', () => {
    const session = new Session('s')
    session.append('turn/start', { turn: 3 })
    session.append('step/start', { turn: 3, step: 2 })
    session.append('tool/call', { turn: 3, step: 2, id: 'c', name: 'run', arguments: {} })
    const before = session.lastSeq
    expect(session.closeOpenTurn('stopped')).toBe(true)
    expect(session.events().slice(before).map((event) => [event.type, event.data])).toEqual([
      ['tool/result', { turn: 3, step: 2, id: 'c', name: 'run', output: 'tool "run" did not return: stopped', isError: true }],
      ['step/end', { turn: 3, step: 2 }],
      ['turn/end', { turn: 3, reason: 'error', error: { message: 'stopped' } }],
    ])
    expect(session.turns()).toEqual({ started: 1, open: undefined })
  })

  it('logs nothing when the log is balanced', () => {
    const session = new Session('s')
    expect(session.closeOpenTurn('stopped')).toBe(false)
    session.append('turn/start', { turn: 1 })
    session.append('turn/end', { turn: 1, reason: 'done' })
    expect(session.closeOpenTurn('stopped')).toBe(false)
    expect(session.lastSeq).toBe(2)
  })
})
