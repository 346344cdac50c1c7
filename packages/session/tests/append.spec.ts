import { describe, expect, expectTypeOf, it } from 'vitest'
import { Session, SessionError } from '../src/index.ts'
import { header, tool } from './helpers.ts'

function expectInvalid(run: () => unknown, ...fragments: string[]) {
  let caught: unknown
  try {
    run()
  } catch (error) {
    caught = error
  }
  expect(caught).toBeInstanceOf(SessionError)
  expect((caught as SessionError).code).toBe('INVALID_EVENT')
  for (const fragment of fragments) expect((caught as SessionError).message).toContain(fragment)
}

const valid = {
  'turn/start': { turn: 1 },
  'step/start': { turn: 1, step: 1 },
  'user/message': { turn: 1, text: 'hi' },
  'request/header': { turn: 1, step: 1, reason: 'initial', header: { model: 'm', system: 's', tools: [tool('a')] } },
  'assistant/message': {
    turn: 1, step: 1, text: 'ok', toolCalls: [{ id: 'c', name: 'a', arguments: {} }],
    usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
  },
  'tool/call': { turn: 1, step: 1, id: 'c', name: 'a', arguments: { x: 1 } },
  'tool/result': { turn: 1, step: 1, id: 'c', name: 'a', output: 'out', isError: false },
  'step/end': { turn: 1, step: 1 },
  'turn/end': { turn: 1, reason: 'error', error: { message: 'boom' } },
  'sequence/reset': { reason: 'compaction' },
  'permission/decision': { turn: 1, step: 1, id: 'c', name: 'a', decision: 'allow', by: 'policy', rule: 'permissions.allow', pattern: 'a' },
} as Record<string, Record<string, unknown>>

/** [type, field path, bad value] — one row per field kind and type. */
const wrong: [string, string, unknown][] = [
  ['turn/start', 'turn', -1],
  ['turn/start', 'turn', 1.5],
  ['turn/start', 'turn', '1'],
  ['step/start', 'step', null],
  ['user/message', 'text', 5],
  ['request/header', 'reason', 'restart'],
  ['request/header', 'header', 'x'],
  ['request/header', 'header.model', 1],
  ['request/header', 'header.system', undefined],
  ['request/header', 'header.tools', {}],
  ['request/header', 'header.tools[0].name', ''],
  ['request/header', 'header.tools[0].parameters', 'schema'],
  ['request/header', 'header.deferredTools', 'a'],
  ['request/header', 'header.deferredTools', []],
  ['request/header', 'header.deferredTools', ['zz']],
  ['request/header', 'header.deferredTools', ['a', 'a']],
  ['request/header', 'header.tools[0].parameters.bad', Number.NaN],
  ['assistant/message', 'toolCalls', 'none'],
  ['assistant/message', 'toolCalls[0].arguments', []],
  ['assistant/message', 'usage', 3],
  ['assistant/message', 'usage.inputTokens', -4],
  ['assistant/message', 'usage.emulated', false],
  ['tool/call', 'arguments', null],
  ['tool/call', 'arguments.when', new Date(0)],
  ['tool/result', 'isError', 'no'],
  ['tool/result', 'output', { text: 'x' }],
  ['turn/end', 'reason', 'finished'],
  ['turn/end', 'error', 'boom'],
  ['turn/end', 'error.message', 42],
  ['sequence/reset', 'reason', false],
  ['permission/decision', 'decision', 'ask'],
  ['permission/decision', 'by', 'model'],
  ['permission/decision', 'rule', 'toolOrder'],
  ['permission/decision', 'pattern', ''],
  ['permission/decision', 'answer', 'maybe'],
  ['permission/decision', 'name', 7],
]

function withField(data: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(data)
  const keys = path.replace(/\[(\d+)\]/g, '.$1').split('.')
  let target: any = copy
  for (const key of keys.slice(0, -1)) target = target[key]
  target[keys.at(-1)!] = value
  return copy
}

describe('append', () => {
  it('numbers events from 1 and stamps an ISO time', () => {
    const session = new Session('s')
    const before = Date.now()
    const first = session.append('turn/start', { turn: 1 })
    const second = session.append('user/message', { turn: 1, text: 'hi' })
    expect([first.seq, second.seq]).toEqual([1, 2])
    expect(session.lastSeq).toBe(2)
    expect(first.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(Date.parse(second.time)).toBeGreaterThanOrEqual(before - 1)
    expect(first).toEqual({ seq: 1, time: first.time, type: 'turn/start', data: { turn: 1 } })
  })

  it('types data by event type', () => {
    const session = new Session('s')
    // @ts-expect-error turn must be a number
    expect(() => session.append('turn/start', { turn: 'one' })).toThrow(SessionError)
    const event = session.append('user/message', { turn: 1, text: 'hi' })
    expectTypeOf(event.data.text).toEqualTypeOf<string>()
    const extension = session.append('example/observed', { anything: [1] })
    expectTypeOf(extension.data).toEqualTypeOf<Record<string, unknown>>()
  })

  it('accepts a valid payload of every core type', () => {
    const session = new Session('s')
    for (const [type, data] of Object.entries(valid)) session.append(type, data)
    session.append('developer/message', { turn: 1, step: 1, source: 'tool-registry', added: ['a'], removed: [], headerSeq: 4 })
    expect(session.events().map(event => event.type)).toEqual([...Object.keys(valid), 'developer/message'])
  })

  it.each(wrong)('rejects %s with a wrong %s', (type, path, value) => {
    const session = new Session('s')
    expectInvalid(() => session.append(type, withField(valid[type]!, path, value)), type, `"${path}`)
    expect(session.lastSeq).toBe(0)
  })

  it('keeps the emulated mark of a usage record from the offline model', () => {
    const session = new Session('s')
    const usage = { inputTokens: 10, outputTokens: 1, cacheReadTokens: 8, cacheWriteTokens: 0, emulated: true as const }
    expect(session.append('assistant/message', { ...valid['assistant/message'], usage } as never).data).toMatchObject({ usage })
  })

  it('rejects missing fields, unknown fields and non-object data, naming the field', () => {
    const session = new Session('s')
    expectInvalid(() => session.append('step/end', { turn: 1 } as never), 'step/end', '"step"', 'undefined')
    expectInvalid(() => session.append('step/end', { turn: 1, step: 1, extra: true } as never), 'step/end', '"extra"', 'valid fields: turn, step')
    expectInvalid(() => session.append('turn/start', 'turn 1' as never), 'turn/start', 'must be an object')
    expectInvalid(() => session.append('turn/start', [1] as never), 'turn/start', 'must be an object')
  })

  it('refuses the names an object inherits as event types, not validating them as a type without fields', () => {
    const session = new Session('s')
    for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expectInvalid(() => session.append(type as never, { anything: 1 } as never), `unknown event type ${JSON.stringify(type)}`)
    }
  })

  it('accepts undefined for optional fields and drops it like JSON does', () => {
    const session = new Session('s')
    const event = session.append('turn/end', { turn: 1, reason: 'error', error: undefined })
    expect('error' in event.data).toBe(false)
  })

  it('keeps a header\'s deferred tools, which must follow the order of its tools', () => {
    const session = new Session('s')
    const header = { model: 'm', system: 's', tools: [tool('a'), tool('b')] }
    const event = session.append('request/header', { turn: 1, step: 1, reason: 'initial', header: { ...header, deferredTools: ['a', 'b'] } })
    expect(event.data.header.deferredTools).toEqual(['a', 'b'])
    expectInvalid(() => session.append('request/header', { turn: 1, step: 1, reason: 'change', header: { ...header, deferredTools: ['b', 'a'] } }),
      '"header.deferredTools[1]"', 'in header.tools order')
  })

  it('rejects a developer message that does not point at a logged request header', () => {
    const session = new Session('s')
    session.append('turn/start', { turn: 1 })
    const update = { turn: 1, step: 1, source: 'tool-registry' as const, added: [] as string[], removed: [] as string[] }
    expectInvalid(() => session.append('developer/message', { ...update, headerSeq: 1 }), 'headerSeq', 'turn/start')
    expectInvalid(() => session.append('developer/message', { ...update, headerSeq: 9 }), 'headerSeq', 'not logged yet')
    expectInvalid(() => session.append('developer/message', { ...update, headerSeq: 0 }), 'headerSeq')
    expectInvalid(() => session.append('developer/message', { ...update, source: 'mcp', headerSeq: 1 } as never), '"source"', '"tool-registry"')
    expectInvalid(() => session.append('developer/message', { ...update, added: [3], headerSeq: 1 } as never), '"added[0]"')
  })

  it('rejects a refusal that does not point at a logged user message of its turn', () => {
    const session = new Session('s')
    session.append('turn/start', { turn: 1 })
    session.append('user/message', { turn: 1, text: 'hi' })
    expectInvalid(() => session.append('user/refused', { turn: 1, messageSeq: 1 }), '"messageSeq"', 'user/message of turn 1', 'a turn/start event')
    expectInvalid(() => session.append('user/refused', { turn: 1, messageSeq: 7 }), '"messageSeq"', 'not logged yet')
    expectInvalid(() => session.append('user/refused', { turn: 2, messageSeq: 2 }), '"messageSeq"', 'of another turn')
    expectInvalid(() => session.append('user/refused', { turn: 1, messageSeq: 0 }), '"messageSeq"')
    expect(session.append('user/refused', { turn: 1, messageSeq: 2 }).data).toEqual({ turn: 1, messageSeq: 2 })
  })

  it('rejects duplicate tool names in a header', () => {
    const session = new Session('s')
    expectInvalid(() => header(session, [tool('a'), tool('b'), tool('a')]), 'header.tools[2].name', 'duplicate', '"a"')
  })

  it('rejects unknown types and core prefixes with unknown verbs, listing the core types', () => {
    const session = new Session('s')
    expectInvalid(() => session.append('hello', {}), '"hello"', 'turn/start', 'prefix/verb')
    expectInvalid(() => session.append('turn/pause', {}), '"turn/pause"', 'turn/start')
    expectInvalid(() => session.append('tool/whatever', {}), '"tool/whatever"')
    expectInvalid(() => session.append('/x', {}), '"/x"')
    expectInvalid(() => session.append(5 as never, {} as never), 'must be a string')
  })

  it('accepts extension types with any JSON object and rejects what JSON cannot carry', () => {
    const session = new Session('s')
    const event = session.append('example/observed', { reason: 'tools', nested: { list: [1, 'two', null, true] } })
    expect(event.data).toEqual({ reason: 'tools', nested: { list: [1, 'two', null, true] } })
    expectInvalid(() => session.append('example/observed', 'x' as never), 'example/observed', 'JSON object')
    expectInvalid(() => session.append('example/observed', { at: new Map() }), '"at"', 'plain objects')
    expectInvalid(() => session.append('example/observed', { f: () => 1 }), '"f"', 'function')
    expectInvalid(() => session.append('example/observed', { n: Number.POSITIVE_INFINITY }), '"n"', 'finite')
    expectInvalid(() => session.append('example/observed', { list: [1, undefined] }), '"list[1]"', 'undefined')
    const loop: Record<string, unknown> = {}
    loop.self = loop
    expectInvalid(() => session.append('example/observed', { loop }), '"loop.self"', 'circular')
    expect(session.lastSeq).toBe(1)
  })

  it('deep-freezes logged events and keeps them independent of the caller\'s objects', () => {
    const session = new Session('s')
    const tools = [tool('a', 'A', { type: 'object', properties: { p: { type: 'string' } } })]
    const event = session.append('request/header', { turn: 1, step: 1, reason: 'initial', header: { model: 'm', system: 's', tools } })
    expect(Object.isFrozen(event)).toBe(true)
    expect(Object.isFrozen(event.data.header.tools[0]!.parameters)).toBe(true)
    expect(() => { (event.data.header.tools as unknown[]).push(tool('b')) }).toThrow(TypeError)
    expect(() => { (event.data as { turn: number }).turn = 2 }).toThrow(TypeError)
    tools[0]!.description = 'changed by caller'
    expect(event.data.header.tools[0]!.description).toBe('A')
    expect(Object.isFrozen(tools[0])).toBe(false)
  })
})
