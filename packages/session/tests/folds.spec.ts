import { describe, expect, it } from 'vitest'
import { Session } from '../src/index.ts'
import { chatTurn, header, registryUpdate, tool } from './helpers.ts'

describe('requestHeader()', () => {
  it('is undefined until a header is logged, then the last header envelope', () => {
    const session = new Session('s')
    session.append('turn/start', { turn: 1 })
    expect(session.requestHeader()).toBeUndefined()
    const first = header(session, [tool('a')], 'initial')
    expect(session.requestHeader()?.seq).toBe(first)
    chatTurn(session, 1)
    const second = header(session, [tool('a'), tool('b')])
    chatTurn(session, 2)
    const found = session.requestHeader()!
    expect(found).toBe(session.events()[second - 1])
    expect(found.data.header.tools.map(t => t.name)).toEqual(['a', 'b'])
  })
})

describe('messages()', () => {
  it('projects user, assistant, tool results and tool-registry updates, in log order', () => {
    const session = new Session('s')
    const h = header(session, [tool('read')], 'initial')
    chatTurn(session, 1)
    const h2 = header(session, [tool('grep'), tool('read')])
    registryUpdate(session, h2, ['grep'], [])
    session.append('example/observed', { reason: 'tools' })
    expect(h).toBe(1)
    expect(session.messages().toArray()).toEqual([
      { role: 'user', text: 'question 1' },
      { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }] },
      { role: 'tool', id: 'c1', name: 'read', output: 'contents', isError: false },
      { role: 'assistant', text: 'answer 1', toolCalls: [] },
      { role: 'developer', source: 'tool-registry', added: ['grep'], removed: [], headerSeq: h2 },
    ])
  })

  it('leaves a refused user message out, from the refusal on, and keeps the messages around it', () => {
    const session = new Session('s')
    header(session, [tool('read')], 'initial')
    chatTurn(session, 1)
    session.append('turn/start', { turn: 2 })
    const asked = session.append('user/message', { turn: 2, text: 'far too long' })
    const before = session.messages()
    expect(before.at(-1)).toEqual({ role: 'user', text: 'far too long' })
    session.append('user/refused', { turn: 2, messageSeq: asked.seq })
    session.append('turn/end', { turn: 2, reason: 'error', error: { message: 'too big' } })
    const after = session.messages().toArray()
    expect(after).toHaveLength(before.length - 1)
    expect(JSON.stringify(after)).not.toContain('far too long')
    expect(after.at(-1)).toEqual({ role: 'assistant', text: 'answer 1', toolCalls: [] })
    // lists published earlier keep their messages
    expect(before.at(-1)).toEqual({ role: 'user', text: 'far too long' })
  })

  it('returns the same frozen list until a message is appended', () => {
    const session = new Session('s')
    chatTurn(session, 1)
    const first = session.messages()
    expect(Object.isFrozen(first)).toBe(true)
    expect(Object.isFrozen(first.at(1))).toBe(true)
    expect(() => { (first as unknown as { length: number }).length = 0 }).toThrow(TypeError)
    expect(session.messages()).toBe(first)
    session.append('turn/start', { turn: 2 })
    session.append('step/end', { turn: 2, step: 1 })
    expect(session.messages()).toBe(first)
    session.append('user/message', { turn: 2, text: 'more' })
    const second = session.messages()
    expect(second).not.toBe(first)
    expect(first).toHaveLength(4)
    expect(second).toHaveLength(5)
    expect(second.at(0)).toBe(first.at(0))
    expect(first.toArray()).toEqual(second.toArray().slice(0, 4))
  })
})

describe('events()', () => {
  it('is a frozen list, the same instance until the next append', () => {
    const session = new Session('s')
    expect(session.events()).toEqual([])
    chatTurn(session, 1)
    const list = session.events()
    expect(Object.isFrozen(list)).toBe(true)
    expect(session.events()).toBe(list)
    expect(list.map(event => event.seq)).toEqual(list.map((_, i) => i + 1))
    session.append('turn/start', { turn: 2 })
    expect(session.events()).not.toBe(list)
    expect(session.events()).toHaveLength(list.length + 1)
  })
})
