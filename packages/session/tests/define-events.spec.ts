import Schema from 'schemastery'
import { describe, expect, expectTypeOf, it } from 'vitest'
import type {} from 'dsh-session'
import { Session, SessionError, defineEvents, optional, record, restoreEvent, type EventMapOf, type SessionEvent } from '../src/index.ts'
import type { KnownEvent } from '../src/events.ts'

const EXAMPLE_EVENTS = defineEvents({
  /** A test plugin's event: a count, a name, a choice and an optional note. */
  'example/measured': record({ step: Schema.natural(), label: Schema.string().min(1), kind: Schema.union(['a', 'b']), note: optional(Schema.string()) }),
  /** Open: fields the schema does not know are accepted as JSON. */
  'example/loose': record({ turn: Schema.natural() }, { open: true }),
})

declare module 'dsh-session' {
  interface SessionEventMap extends EventMapOf<typeof EXAMPLE_EVENTS> {}
}

function invalid(run: () => unknown): string {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(SessionError)
    expect((error as SessionError).code).toBe('INVALID_EVENT')
    return (error as Error).message
  }
  throw new Error('expected INVALID_EVENT')
}

describe('defineEvents', () => {
  it('validates a registered event type field by field, with the core types\' messages', () => {
    const session = new Session('s')
    const event = session.append('example/measured', { step: 1, label: 'x', kind: 'a' })
    expect(event.data).toEqual({ step: 1, label: 'x', kind: 'a' })
    expect(invalid(() => session.append('example/measured', { step: -1, label: 'x', kind: 'a' })))
      .toBe('example/measured: field "step" must be a non-negative integer, got -1')
    expect(invalid(() => session.append('example/measured', { step: 1, label: '', kind: 'a' })))
      .toBe('example/measured: field "label" must be a non-empty string, got ""')
    expect(invalid(() => session.append('example/measured', { step: 1, label: 'x', kind: 'c' } as never)))
      .toBe('example/measured: field "kind" must be one of "a", "b", got "c"')
    expect(invalid(() => session.append('example/measured', { step: 1, label: 'x', kind: 'a', note: 3 } as never)))
      .toBe('example/measured: field "note" must be a string, got 3')
    expect(invalid(() => session.append('example/measured', { step: 1, kind: 'a' } as never)))
      .toBe('example/measured: field "label" must be a non-empty string, got undefined')
    expect(invalid(() => session.append('example/measured', { step: 1, label: 'x', kind: 'a', extra: 1 } as never)))
      .toBe('example/measured: field "extra" must be absent (unknown field; valid fields: step, label, kind, note), got 1')
    expect(invalid(() => session.append('example/measured', 'x' as never))).toBe('example/measured: data must be an object, got "x"')
    expect(session.lastSeq).toBe(1)
  })

  it('accepts unknown fields of an open record as JSON, and still checks the known ones', () => {
    const session = new Session('s')
    expect(session.append('example/loose', { turn: 1, later: { added: [1] } } as never).data).toEqual({ turn: 1, later: { added: [1] } })
    expect(invalid(() => session.append('example/loose', { turn: 1, at: new Date(0) } as never))).toContain('"at" must be JSON (only plain objects)')
    expect(invalid(() => session.append('example/loose', { turn: 'one' } as never))).toContain('"turn" must be a non-negative integer')
  })

  it('checks registered types when a log is loaded too', () => {
    const session = new Session('s', { resumed: true })
    const time = new Date().toISOString()
    session[restoreEvent]({ seq: 1, time, type: 'example/measured', data: { step: 2, label: 'y', kind: 'b' } })
    expect(invalid(() => session[restoreEvent]({ seq: 2, time, type: 'example/measured', data: { step: 2, label: 'y', kind: 'z' } })))
      .toContain('field "kind" must be one of "a", "b"')
  })

  it('leaves unregistered extension types as they were: any JSON object', () => {
    const session = new Session('s')
    expect(session.append('example/other', { anything: [1, 'two'] }).data).toEqual({ anything: [1, 'two'] })
  })

  it('refuses core prefixes, malformed types, a second schema for a type, and data that is not a record', () => {
    expect(() => defineEvents({ 'turn/paused': record({}) })).toThrow('defineEvents: event type "turn/paused" must look like "prefix/verb" with a prefix other than turn, step')
    expect(() => defineEvents({ measured: record({}) })).toThrow('"measured" must look like "prefix/verb"')
    expect(() => defineEvents({ 'example/measured': record({ step: Schema.natural() }) })).toThrow('"example/measured" already has another schema')
    expect(defineEvents({ 'example/measured': EXAMPLE_EVENTS['example/measured'] })).toBeDefined()
    expect(() => defineEvents({ 'example/list': Schema.array(Schema.string()) })).toThrow('the data of "example/list" must be a record (an object schema), got a "array" schema')
  })

  it('refuses a schema kind a JSON log cannot hold, naming it and the valid kinds', () => {
    expect(() => defineEvents({ 'example/dated': record({ at: Schema.date() }) })).toThrow(/cannot be of kind "union" \(only a union of strings\); valid kinds: string, number/)
    expect(() => defineEvents({ 'example/called': record({ run: Schema.function() }) })).toThrow('an event schema cannot be of kind "function"')
  })

  it('derives the data type of a registered event from its schema', () => {
    const event = new Session('s').append('example/measured', { step: 1, label: 'x', kind: 'b' })
    expectTypeOf(event.data).toEqualTypeOf<{ step: number; label: string; kind: 'a' | 'b'; note?: string }>()
    // @ts-expect-error kind must be 'a' or 'b'
    expect(() => new Session('s').append('example/measured', { step: 1, label: 'x', kind: 'c' })).toThrow(SessionError)
  })
})

describe('KnownEvent', () => {
  it('narrows on type: a switch reads each type\'s data without a cast', () => {
    const session = new Session('s')
    session.append('turn/start', { turn: 1 })
    session.append('user/message', { turn: 1, text: 'hi' })
    session.append('example/measured', { step: 0, label: 'm', kind: 'a' })
    const seen: string[] = []
    for (const event of session.events()) {
      expectTypeOf(event).toEqualTypeOf<KnownEvent>()
      switch (event.type) {
        case 'turn/start':
          expectTypeOf(event.data).toEqualTypeOf<{ turn: number }>()
          seen.push(`turn ${event.data.turn}`)
          break
        case 'user/message':
          seen.push(event.data.text)
          break
        case 'example/measured':
          seen.push(event.data.label)
          break
      }
    }
    expect(seen).toEqual(['turn 1', 'hi', 'm'])
  })

  it('types one event type\'s events, and any event', () => {
    expectTypeOf<SessionEvent<'request/header'>['data']['reason']>().toEqualTypeOf<'initial' | 'resume' | 'change' | 'model'>()
    expectTypeOf<SessionEvent<'turn/end'>['data']>().toEqualTypeOf<{ turn: number; reason: 'done' | 'error' | 'cancelled' | 'step_limit'; error?: { message: string } }>()
    expectTypeOf<SessionEvent<string>['data']>().toEqualTypeOf<Record<string, unknown>>()
  })
})
