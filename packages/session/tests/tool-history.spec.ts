import type { ToolSchema, ToolHistorySnapshot } from 'dsh-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Session } from '../src/index.ts'
import { chatTurn, header, registryUpdate, tool } from './helpers.ts'

const read = tool('read')
const grep = tool('grep')
const edit = tool('edit')
const editV2 = tool('edit', 'edit tool, now with ranges', { type: 'object', properties: { range: { type: 'string' } } })

describe('toolHistory()', () => {
  it('is undefined before the first header; the first header opens a sequence', () => {
    const session = new Session('s')
    chatTurn(session, 1)
    expect(session.toolHistory()).toBeUndefined()
    const h1 = header(session, [grep, read], 'initial')
    const history = session.toolHistory()!
    expect(history.sequenceStartSeq).toBe(h1)
    expect(history.declarations).toEqual([grep, read])
    expect(history.updates).toEqual([])
    expect(history.resolve('read', h1)).toEqual(read)
  })

  it('records additions and removals as updates and resolves added tools through their header', () => {
    const session = new Session('s')
    const h1 = header(session, [read], 'initial')
    chatTurn(session, 1)
    const h2 = header(session, [edit, read])
    const u2 = registryUpdate(session, h2, ['edit'], [])
    chatTurn(session, 2)
    const h3 = header(session, [edit])
    const u3 = registryUpdate(session, h3, [], ['read'])
    const history = session.toolHistory()!
    expect(history.sequenceStartSeq).toBe(h1)
    expect(history.declarations).toEqual([read])
    expect(history.updates).toEqual([
      { seq: u2, added: ['edit'], removed: [], headerSeq: h2 },
      { seq: u3, added: [], removed: ['read'], headerSeq: h3 },
    ])
    expect(history.resolve('edit', h2)).toEqual(edit)
    expect(history.resolve('edit', h1)).toBeUndefined()
    expect(history.resolve('read', h3)).toBeUndefined()
    expect(history.resolve('nope', h2)).toBeUndefined()
  })

  it('continues the sequence when a removed tool comes back unchanged', () => {
    const session = new Session('s')
    const h1 = header(session, [edit, read], 'initial')
    const h2 = header(session, [read])
    registryUpdate(session, h2, [], ['edit'])
    const h3 = header(session, [edit, read])
    const u3 = registryUpdate(session, h3, ['edit'], [])
    const history = session.toolHistory()!
    expect(history.sequenceStartSeq).toBe(h1)
    expect(history.declarations).toEqual([edit, read])
    expect(history.updates.map(u => u.seq)).toEqual([h2 + 1, u3])
    expect(history.updates.at(-1)).toEqual({ seq: u3, added: ['edit'], removed: [], headerSeq: h3 })
    expect(history.resolve('edit', h3)).toEqual(edit)
  })

  it('starts a new sequence when a removed tool comes back with a changed definition', () => {
    const session = new Session('s')
    header(session, [edit, read], 'initial')
    const h2 = header(session, [read])
    registryUpdate(session, h2, [], ['edit'])
    const h3 = header(session, [editV2, read])
    registryUpdate(session, h3, ['edit'], [])
    const history = session.toolHistory()!
    expect(history.sequenceStartSeq).toBe(h3)
    expect(history.declarations).toEqual([editV2, read])
    // The update through the opening header is already in the declarations.
    expect(history.updates).toEqual([])
    expect(history.resolve('edit', h3)).toEqual(editV2)
    expect(history.resolve('read', h2)).toBeUndefined()
  })

  it('starts a new sequence when a kept tool changes its definition', () => {
    const session = new Session('s')
    header(session, [edit, read], 'initial')
    const h2 = header(session, [edit, grep, read])
    registryUpdate(session, h2, ['grep'], [])
    const h3 = header(session, [editV2, grep, read])
    expect(session.toolHistory()).toMatchObject({ sequenceStartSeq: h3, declarations: [editV2, grep, read], updates: [] })
    const h4 = header(session, [editV2, read])
    const u4 = registryUpdate(session, h4, [], ['grep'])
    expect(session.toolHistory()).toMatchObject({ sequenceStartSeq: h3, updates: [{ seq: u4, removed: ['grep'], headerSeq: h4 }] })
  })

  it('treats a header that only reorders or resends the same definitions as a continuation', () => {
    const session = new Session('s')
    const h1 = header(session, [grep, read], 'initial')
    header(session, [read, grep], 'resume')
    expect(session.toolHistory()!.sequenceStartSeq).toBe(h1)
  })

  it('starts a new sequence at the header after an explicit sequence/reset', () => {
    const session = new Session('s')
    header(session, [read], 'initial')
    const h2 = header(session, [edit, read])
    registryUpdate(session, h2, ['edit'], [])
    const before = session.toolHistory()!
    session.append('sequence/reset', { reason: 'compaction' })
    expect(session.toolHistory()).toBe(before)
    const h3 = header(session, [edit, read])
    const history = session.toolHistory()!
    expect(history).toMatchObject({ sequenceStartSeq: h3, declarations: [edit, read], updates: [] })
  })

  it('ignores developer messages through headers of an earlier sequence', () => {
    const session = new Session('s')
    const h1 = header(session, [read], 'initial')
    header(session, [tool('read', 'changed')])
    registryUpdate(session, h1, ['late'], [])
    expect(session.toolHistory()!.updates).toEqual([])
  })

  it('returns a frozen snapshot, the same object until something changes, and never mutates an old one', () => {
    const session = new Session('s')
    header(session, [read], 'initial')
    const first = session.toolHistory()!
    expect(Object.isFrozen(first)).toBe(true)
    expect(Object.isFrozen(first.updates)).toBe(true)
    expect(Object.isFrozen(first.declarations)).toBe(true)
    expect(Object.isFrozen(first.declarations[0]!.parameters)).toBe(true)
    chatTurn(session, 1)
    expect(session.toolHistory()).toBe(first)
    const h2 = header(session, [edit, read])
    registryUpdate(session, h2, ['edit'], [])
    const second = session.toolHistory()!
    expect(second).not.toBe(first)
    expect(first.updates).toEqual([])
    expect(first.resolve('edit', h2)).toBeUndefined()
    expect(second.resolve('edit', h2)).toEqual(edit)
    expect(() => { (second.updates as unknown[]).push({}) }).toThrow(TypeError)
  })
})

type Step =
  | { kind: 'header'; tools: number[]; variant: number }
  | { kind: 'chat' }
  | { kind: 'reset' }
  | { kind: 'read' }

const TOOL_NAMES = ['a', 'b', 'c', 'd']

function definition(index: number, variant: number): ToolSchema {
  return tool(TOOL_NAMES[index]!, variant ? `v${variant}` : 'base')
}

/** Plays steps the way the agent loop would: a header, then a registry update for changed names. */
function play(session: Session, steps: Step[], onRead: () => void): void {
  let previous: string[] | undefined
  let turn = 0
  for (const step of steps) {
    if (step.kind === 'chat') chatTurn(session, ++turn)
    else if (step.kind === 'reset') session.append('sequence/reset', { reason: 'test' })
    else if (step.kind === 'read') onRead()
    else {
      const indices = [...new Set(step.tools)].sort()
      const tools = indices.map(i => definition(i, i === 0 ? step.variant : 0))
      const names = tools.map(t => t.name)
      const seq = header(session, tools, previous ? 'change' : 'initial')
      if (previous) {
        const added = names.filter(n => !previous!.includes(n))
        const removed = previous.filter(n => !names.includes(n))
        if (added.length || removed.length) registryUpdate(session, seq, added, removed)
      }
      previous = names
    }
  }
}

function view(history: ToolHistorySnapshot | undefined, lastSeq: number) {
  if (!history) return undefined
  const resolved: unknown[] = []
  for (let seq = 1; seq <= lastSeq; seq++) {
    for (const name of TOOL_NAMES) resolved.push(history.resolve(name, seq) ?? null)
  }
  return { start: history.sequenceStartSeq, declarations: history.declarations, updates: history.updates, resolved }
}

describe('toolHistory() incremental reads', () => {
  it('equal one read over the whole log, wherever the reads happen', () => {
    const stepArb: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant('header' as const), tools: fc.array(fc.nat(3), { maxLength: 4 }), variant: fc.nat(2) }),
      fc.constant({ kind: 'chat' as const }),
      fc.constant({ kind: 'reset' as const }),
      fc.constant({ kind: 'read' as const }),
    )
    fc.assert(fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
      const incremental = new Session('inc')
      play(incremental, steps, () => {
        incremental.toolHistory()
        incremental.messages()
      })
      const whole = new Session('whole')
      play(whole, steps, () => {})
      expect(view(incremental.toolHistory(), incremental.lastSeq)).toEqual(view(whole.toolHistory(), whole.lastSeq))
      expect(incremental.messages().toArray()).toEqual(whole.messages().toArray())
    }))
  })
})
