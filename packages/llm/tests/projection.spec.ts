import { deepFreeze, type ChatMessage } from 'dsh-core'
import fc from 'fast-check'
import { projectToolUpdates, type GenerateOptions, type ToolUpdateMode } from 'dsh-llm'
import type { ToolProjection } from '../src/projection.ts'
import { describe, expect, it } from 'vitest'
import { simulate, tool } from './history.ts'

const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => tool(name))

function request(steps: ReturnType<typeof simulate>, extra: Partial<GenerateOptions> = {}): GenerateOptions {
  return { model: 'm', system: 's', tools: steps.tools, messages: steps.messages, toolHistory: steps.history, ...extra }
}

const declared = (projection: ToolProjection) => projection.declarations.map(({ definition, deferred }) => `${definition.name}${deferred ? '*' : ''}`)
const notices = (projection: ToolProjection) => [...projection.messages].flatMap((message) =>
  message.role === 'tool-update' ? [`+${message.added.map((t) => t.name).join(',')} -${message.removed.join(',')}`] : [])

describe('projectToolUpdates', () => {
  // a, b at start; c added; b removed
  const addThenRemove = simulate([[a, b], [a, b, c], [a, c]])

  it('none: declares options.tools and drops developer messages', () => {
    const projection = projectToolUpdates(request(addThenRemove, { deferredTools: ['a'] }), 'none')
    expect(projection.declarations).toEqual([{ definition: a, deferred: false }, { definition: c, deferred: false }])
    expect(projection.declarations[0].definition).toBe(addThenRemove.tools[0])
    expect([...projection.messages].map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant'])
    expect(projection.fallback).toBeUndefined()
  })

  it('addition-only: defers additions, drops removed tools and removal notices', () => {
    const projection = projectToolUpdates(request(addThenRemove), 'addition-only')
    expect(declared(projection)).toEqual(['a', 'c*'])
    expect(notices(projection)).toEqual(['+c -'])
    expect(projection.fallback).toBeUndefined()
    const notice = [...projection.messages].find((m) => m.role === 'tool-update')
    expect(notice).toEqual({ role: 'tool-update', added: [c], removed: [] })
    // the notice sits where the developer message was
    expect([...projection.messages].map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'tool-update', 'assistant', 'user', 'assistant'])
  })

  it('in-history: keeps removed tools declared and carries removal notices', () => {
    const projection = projectToolUpdates(request(addThenRemove), 'in-history')
    expect(declared(projection)).toEqual(['a', 'b', 'c*'])
    expect(notices(projection)).toEqual(['+c -', '+ -b'])
  })

  it('append: keeps the sequence\'s declaration order, appends what joins, keeps removed tools, tells removals only', () => {
    // b and d join after c, which sorts after them; the effective list is canonical, the projection is not
    const joined = simulate([[a, c], [a, b, c], [a, b, c, d], [a, b, d]])
    const projection = projectToolUpdates(request(joined, { deferredTools: ['a'] }), 'append')
    expect(declared(projection)).toEqual(['a', 'c', 'b', 'd'])
    expect(notices(projection)).toEqual(['+ -c'])
    expect(projection.fallback).toBeUndefined()
    expect(joined.tools.map((t) => t.name)).toEqual(['a', 'b', 'd'])
  })

  it('append: each request declares the previous request\'s tools as a prefix, in the same order', () => {
    const steps = [[a, c], [a, b, c], [a, b, c, d], [a, b, d]]
    const lists = steps.map((_, index) => declared(projectToolUpdates(request(simulate(steps.slice(0, index + 1))), 'append')))
    for (let index = 1; index < lists.length; index++) expect(lists[index]!.slice(0, lists[index - 1]!.length)).toEqual(lists[index - 1])
  })

  it('append: falls back to the effective tools in canonical order without a tool history', () => {
    const joined = simulate([[a, c], [a, b, c]])
    const projection = projectToolUpdates(request(joined, { toolHistory: undefined }), 'append')
    expect(declared(projection)).toEqual(['a', 'b', 'c'])
    expect(projection.fallback).toBe('missing-history')
  })

  it('in-history: a tool restored unchanged keeps the declarations and is announced again', () => {
    const restored = simulate([[a, b], [a], [a, b]])
    const projection = projectToolUpdates(request(restored), 'in-history')
    expect(declared(projection)).toEqual(['a', 'b'])
    expect(notices(projection)).toEqual(['+ -b', '+b -'])
    expect(declared(projectToolUpdates(request(restored), 'addition-only'))).toEqual(['a', 'b'])
  })

  it('addition-only: an addition later removed is neither declared nor announced', () => {
    const transient = simulate([[a], [a, c], [a, c, d], [a, d]])
    const projection = projectToolUpdates(request(transient), 'addition-only')
    expect(declared(projection)).toEqual(['a', 'd*'])
    expect(notices(projection)).toEqual(['+d -'])
    expect(declared(projectToolUpdates(request(transient), 'in-history'))).toEqual(['a', 'c*', 'd*'])
  })

  it('declares deferredTools deferred on history-capable routes only', () => {
    const plain = simulate([[a, b]])
    const options = request(plain, { deferredTools: ['b', 'not-a-tool'] })
    expect(declared(projectToolUpdates(options, 'in-history'))).toEqual(['a', 'b*'])
    expect(declared(projectToolUpdates(options, 'addition-only'))).toEqual(['a', 'b*'])
    expect(declared(projectToolUpdates(options, 'none'))).toEqual(['a', 'b'])
    // also when the route falls back for want of history
    expect(declared(projectToolUpdates({ ...options, toolHistory: undefined }, 'addition-only'))).toEqual(['a', 'b*'])
  })

  it('drops developer messages of earlier sequences and keeps the current ones', () => {
    const current = simulate([[a, b], [a, b, c]], 40)
    const stale: ChatMessage = { role: 'developer', source: 'tool-registry', added: ['x'], removed: [], headerSeq: 12 }
    const options = request(current, { messages: [stale, ...current.messages] })
    const projection = projectToolUpdates(options, 'in-history')
    expect(projection.fallback).toBeUndefined()
    expect(notices(projection)).toEqual(['+c -'])
    expect(declared(projection)).toEqual(['a', 'b', 'c*'])
  })

  describe('falls back to current declarations without notices', () => {
    const expectFallback = (projection: ToolProjection, reason: string, tools = addThenRemove.tools) => {
      expect(projection.fallback).toBe(reason)
      expect(projection.declarations.map((entry) => entry.definition)).toEqual(tools)
      expect(projection.declarations.every((entry) => !entry.deferred)).toBe(true)
      expect([...projection.messages].every((m) => ['user', 'assistant', 'tool'].includes(m.role))).toBe(true)
    }

    it.each(['addition-only', 'in-history'] as const)('%s: when the history snapshot is missing', (mode) => {
      expectFallback(projectToolUpdates(request(addThenRemove, { toolHistory: undefined }), mode), 'missing-history')
    })

    it.each(['addition-only', 'in-history'] as const)('%s: when the messages lack a recorded update', (mode) => {
      const compacted = addThenRemove.messages.filter((m) => !(m.role === 'developer' && m.removed.includes('b')))
      expectFallback(projectToolUpdates(request(addThenRemove, { messages: compacted }), mode), 'incomplete-prefix')
    })

    it('when a developer message of this sequence is not recorded', () => {
      const extra: ChatMessage = { role: 'developer', source: 'tool-registry', added: ['zz'], removed: [], headerSeq: 99 }
      const options = request(addThenRemove, { messages: [...addThenRemove.messages, extra] })
      expectFallback(projectToolUpdates(options, 'in-history'), 'inconsistent-history')
    })

    it('when a developer message differs from its recorded update', () => {
      const altered = addThenRemove.messages.map((m) => m.role === 'developer' && m.added.includes('c') ? { ...m, added: ['d'] } : m)
      expectFallback(projectToolUpdates(request(addThenRemove, { messages: altered }), 'in-history'), 'inconsistent-history')
    })

    it('when an addition does not resolve', () => {
      const history = { ...addThenRemove.history, resolve: () => undefined }
      expectFallback(projectToolUpdates(request(addThenRemove, { toolHistory: history }), 'addition-only'), 'inconsistent-history')
    })

    it('when the history ends elsewhere than options.tools', () => {
      const tools = [a, c, d]
      expectFallback(projectToolUpdates(request(addThenRemove, { tools }), 'addition-only'), 'inconsistent-history', tools)
    })

    it('when a name changes definition inside the sequence', () => {
      const changed = simulate([[a, b], [a], [a, tool('b', 2)]])
      expectFallback(projectToolUpdates(request(changed), 'in-history'), 'inconsistent-history', changed.tools)
    })
  })

  it('rejects an unknown mode, listing the valid ones', () => {
    expect(() => projectToolUpdates(request(addThenRemove), 'sometimes' as ToolUpdateMode))
      .toThrow('unknown tool-update mode "sometimes"; valid: none, append, addition-only, in-history')
  })

  it('works on frozen options and repeats itself exactly', () => {
    const options = deepFreeze(request(simulate([[a, b], [a, b, c], [a, c]])))
    for (const mode of ['none', 'addition-only', 'in-history'] as const) {
      expect(projectToolUpdates(options, mode)).toEqual(projectToolUpdates(options, mode))
    }
  })
})

describe('projectToolUpdates properties', () => {
  const universe = ['read', 'write', 'grep', 'shell', 'web', 'mcp__x'].map((name) => tool(name))
  const toolSets = fc.array(fc.subarray(universe), { minLength: 1, maxLength: 7 })
  const scenario = fc.record({
    steps: toolSets,
    deferred: fc.subarray(universe.map((t) => t.name)),
    dropHistory: fc.boolean(),
    dropUpdate: fc.option(fc.nat(), { nil: undefined }),
  }).map(({ steps, deferred, dropHistory, dropUpdate }) => {
    const sim = simulate(steps)
    let messages = sim.messages
    if (dropUpdate !== undefined) {
      const developer = messages.filter((m) => m.role === 'developer')
      if (developer.length) messages = messages.filter((m) => m !== developer[dropUpdate % developer.length])
    }
    return deepFreeze(request(sim, { messages, deferredTools: deferred, ...dropHistory && { toolHistory: undefined } }))
  })
  const names = (projection: ToolProjection) => projection.declarations.map((entry) => entry.definition.name)

  it('none always declares exactly options.tools, undeferred, with no tool-update messages', () => {
    fc.assert(fc.property(scenario, (options) => {
      const projection = projectToolUpdates(options, 'none')
      expect(projection.declarations).toEqual(options.tools.map((definition) => ({ definition, deferred: false })))
      expect(projection.messages).toEqual([...options.messages].filter((m) => m.role !== 'developer'))
    }))
  })

  it('in-history declarations include the addition-only declarations', () => {
    fc.assert(fc.property(scenario, (options) => {
      const inHistory = new Set(names(projectToolUpdates(options, 'in-history')))
      for (const name of names(projectToolUpdates(options, 'addition-only'))) expect(inHistory.has(name)).toBe(true)
    }))
  })

  it('addition-only declares the effective tools, and every notice names a declared tool', () => {
    fc.assert(fc.property(scenario, (options) => {
      for (const mode of ['addition-only', 'in-history'] as const) {
        const projection = projectToolUpdates(options, mode)
        const declaredNames = new Set(names(projection))
        if (mode === 'addition-only') expect([...declaredNames].sort()).toEqual(options.tools.map((t) => t.name).sort())
        for (const message of projection.messages) {
          if (message.role === 'tool-update') for (const added of message.added) expect(declaredNames.has(added.name)).toBe(true)
        }
        const updates = options.toolHistory?.updates.length ?? 0
        const fellBack = projection.fallback !== undefined
        expect(fellBack).toBe(!options.toolHistory || [...options.messages].filter((m) => m.role === 'developer').length !== updates)
      }
    }))
  })

  it('is deterministic', () => {
    fc.assert(fc.property(scenario, fc.constantFrom<ToolUpdateMode>('none', 'addition-only', 'in-history'), (options, mode) => {
      expect(JSON.stringify(projectToolUpdates(options, mode))).toBe(JSON.stringify(projectToolUpdates(options, mode)))
    }))
  })
})
