import type { ToolSchema } from 'dsh-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST, canonicalToolOrder } from 'dsh-system-prompt'
import { diffPrefixes } from '../src/diff.ts'
import { explainPositions } from '../src/reasons.ts'
import { serializePrefix } from '../src/fingerprint.ts'
import type { PrefixSource } from '../src/sources.ts'

const tool = (name: string, description = `${name} things.`): ToolSchema => ({ name, description, parameters: { type: 'object', properties: {} } })
const source = (tools: ToolSchema[], system = 'You help.'): PrefixSource =>
  ({ input: 'x', kind: 'session', header: { model: 'm', system, tools }, sections: null, event: null })
const names = fc.uniqueArray(fc.stringMatching(/^[a-zA-Z0-9_-]{1,6}$/), { maxLength: 8 })

describe('explainPositions', () => {
  it('explains an untouched canonical list by the order policy alone', () => {
    fc.assert(fc.property(names, (list) => {
      const canonical = canonicalToolOrder(list.map((name) => tool(name)))
      const { tools, removed } = explainPositions(canonical, canonical, undefined)
      expect(removed).toEqual([])
      expect(tools.every((entry) => entry.reason === 'lexicographic' && entry.position === entry.canonicalPosition)).toBe(true)
    }))
  })

  it('flags as moved only the tools outside the longest run kept in canonical order', () => {
    fc.assert(fc.property(names.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length }))), ([list, shuffled]) => {
      const canonical = canonicalToolOrder(list.map((name) => tool(name)))
      const final = shuffled.map((name) => canonical.find((entry) => entry.name === name)!)
      const { tools } = explainPositions(final, canonical, undefined)
      const kept = tools.filter((entry) => entry.reason !== 'moved').map((entry) => entry.canonicalPosition!)
      expect(kept).toEqual([...kept].sort((a, b) => a - b))
      expect(kept.length).toBe(longestIncreasing(tools.map((entry) => entry.canonicalPosition!)))
    }))
  })

  it('names listed positions and the rest entry', () => {
    const order = ['c', TOOL_ORDER_REST, 'a']
    const canonical = canonicalToolOrder(['a', 'b', 'c'].map((name) => tool(name)), order)
    expect(explainPositions(canonical, canonical, order).tools.map((entry) => entry.detail)).toEqual([
      'listed position 1', 'rest entry (code-unit order) at listed position 2', 'listed position 3',
    ])
  })

  it('names the group that placed a tool, exact names beating it', () => {
    const order = ['mcp__gh__*', TOOL_ORDER_REST, 'mcp__gh__pr']
    const canonical = canonicalToolOrder(['mcp__gh__pr', 'mcp__gh__issue', 'read'].map((name) => tool(name)), order)
    expect(explainPositions(canonical, canonical, order).tools.map((entry) => [entry.name, entry.reason, entry.detail])).toEqual([
      ['mcp__gh__issue', 'group', 'group `mcp__gh__*`, position 1'],
      ['read', 'rest', 'rest entry (code-unit order) at listed position 2'],
      ['mcp__gh__pr', 'listed', 'listed position 3'],
    ])
  })
})

function longestIncreasing(values: number[]): number {
  const best = values.map(() => 1)
  values.forEach((value, index) => {
    for (let before = 0; before < index; before++) if (values[before] < value) best[index] = Math.max(best[index], best[before] + 1)
  })
  return Math.max(0, ...best)
}

describe('diffPrefixes', () => {
  it('reports the first differing byte of the serialized prefixes, and identical only for equal bytes', () => {
    const tools = fc.uniqueArray(fc.record({ name: fc.constantFrom('a', 'b', 'c', 'd'), description: fc.constantFrom('x', 'y', 'é') }), { selector: (entry) => entry.name, maxLength: 4 })
    fc.assert(fc.property(tools, tools, fc.constantFrom('Be brief.', 'Be brief!', 'Bé brief.'), fc.constantFrom('Be brief.', 'Be'), (ta, tb, sa, sb) => {
      const a = source(ta.map((entry) => tool(entry.name, entry.description)), sa)
      const b = source(tb.map((entry) => tool(entry.name, entry.description)), sb)
      const diff = diffPrefixes(a, b)
      const bytesA = Buffer.from(serializePrefix(a.header))
      const bytesB = Buffer.from(serializePrefix(b.header))
      expect(diff.identical).toBe(bytesA.equals(bytesB))
      if (diff.divergence) {
        const at = diff.divergence.offset
        expect(bytesA.subarray(0, at).equals(bytesB.subarray(0, at))).toBe(true)
        expect(at === bytesA.length || at === bytesB.length || bytesA[at] !== bytesB[at]).toBe(true)
        expect(diff.divergence.part).toBe(JSON.stringify(a.header.tools) === JSON.stringify(b.header.tools) ? 'system' : 'tools')
      }
    }))
  })

  it('classifies the first differing tool', () => {
    const cause = (a: string[], b: string[]) => diffPrefixes(source(a.map((name) => tool(name))), source(b.map((name) => tool(name)))).divergence?.tool
    expect(cause(['a', 'b'], ['b', 'a'])).toMatchObject({ index: 1, cause: 'order' })
    expect(cause(['a', 'b'], ['a', 'b', 'c'])).toMatchObject({ index: 3, a: null, b: 'c', cause: 'added' })
    expect(cause(['a', 'b'], ['b'])).toMatchObject({ index: 1, a: 'a', cause: 'removed' })
    const schema = diffPrefixes(source([tool('a')]), source([{ ...tool('a'), parameters: { type: 'object' } }])).divergence?.tool
    expect(schema).toMatchObject({ cause: 'schema', fields: ['parameters'] })
  })

  it('names a system divergence by byte, line, column, paragraph and section', () => {
    const system = 'One.\n\nTwo\nthree.'
    const a = { ...source([], system), sections: [{ name: 's1', order: 0, text: 'One.', offset: 0, sha256: '' }, { name: 's2', order: 1, text: 'Two\nthree.', offset: 6, sha256: '' }] }
    const diff = diffPrefixes(a, source([], 'One.\n\nTwo\nthreé.'))
    expect(diff.divergence?.system).toEqual({ offset: 14, line: 4, column: 5, paragraph: 2, section: 's2', cause: 'system_changed' })
    expect(diff.divergence?.offset).toBe(Buffer.byteLength('[]\n') + 14)
  })
})
