import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  firstByteDifference, joinSections, prefixDiff, prefixTools, sectionRanges, systemDiff, toolsDiff, type RenderedSection,
} from '../src/bytes.ts'
import type { Prefix } from '../src/prefix-diff.ts'

const side = (sections: RenderedSection[], tools: string[] = []): Prefix => ({
  tools: prefixTools(tools.map((name) => ({ name, description: `${name} tool` }))),
  system: joinSections(sections),
  sections: sectionRanges(sections),
})
const text = (sections: RenderedSection[]) => ({ system: joinSections(sections) })
const bytes = (value: string) => Buffer.byteLength(value)

const identity = { name: 'identity', text: 'You are DSH.' }
const persona = { name: 'persona', text: 'Terse — très.' }
const notes = { name: 'notes', text: 'Notes: one.' }

describe('prefixDiff', () => {
  it('is undefined for equal prefixes and puts a tools difference first', () => {
    expect(prefixDiff(side([identity, persona], ['a']), side([identity, persona], ['a']))).toBeUndefined()
    expect(prefixDiff(side([identity], ['a']), side([persona], ['a', 'b']))).toEqual({ part: 'tools', cause: 'tool_added', index: 1, a: undefined, b: 'b' })
    expect(prefixDiff(side([identity], ['a']), side([persona], ['a']))).toMatchObject({ part: 'system', offset: 0 })
  })
})

describe('toolsDiff', () => {
  const tools = (...names: string[]) => prefixTools(names.map((name) => ({ name })))
  const schema = (name: string, digest: string) => ({ name, digest })

  it('names the first differing tool and its cause', () => {
    expect(toolsDiff(tools('a', 'b'), tools('b', 'a'))).toEqual({ part: 'tools', cause: 'tool_order', index: 0, a: 'a', b: 'b' })
    expect(toolsDiff(tools('a', 'b'), tools('a', 'b', 'c'))).toMatchObject({ cause: 'tool_added', index: 2, a: undefined, b: 'c' })
    expect(toolsDiff(tools('a', 'b'), tools('b'))).toMatchObject({ cause: 'tool_removed', index: 0, a: 'a', b: 'b' })
    expect(toolsDiff(tools('a', 'b'), tools('a'))).toMatchObject({ cause: 'tool_removed', index: 1, a: 'b', b: undefined })
    expect(toolsDiff([schema('a', '1')], [schema('a', '2')])).toMatchObject({ cause: 'tool_schema', index: 0 })
  })

  it('asks about the new side first when a tool was swapped for another', () => {
    expect(toolsDiff(tools('x'), tools('y'))).toMatchObject({ cause: 'tool_added', a: 'x', b: 'y' })
  })

  it('calls any other order of the same tools tool_order, and equal lists equal', () => {
    const names = ['a', 'b', 'c', 'd', 'e']
    fc.assert(fc.property(fc.shuffledSubarray(names, { minLength: 5, maxLength: 5 }), (order) => {
      const found = toolsDiff(tools(...names), tools(...order))
      if (order.join() === names.join()) expect(found).toBeUndefined()
      else expect(found).toMatchObject({ cause: 'tool_order', index: order.findIndex((name, index) => name !== names[index]) })
    }))
  })
})

describe('systemDiff', () => {
  it('names the edited section at the first changed byte', () => {
    expect(systemDiff(side([identity, persona, notes]), side([identity, { name: 'persona', text: 'Terse — trés.' }, notes])))
      .toEqual({ part: 'system', cause: 'section_changed', offset: bytes('You are DSH.\n\nTerse — tr') + 1, section: 'persona' })
  })

  it('names an inserted section, not the one it pushed along, and a removed one, not the one that moved up', () => {
    const rules = { name: 'rules', text: 'Rules.' }
    expect(systemDiff(side([identity, persona, notes]), side([identity, persona, rules, notes])))
      .toMatchObject({ cause: 'section_added', section: 'rules', offset: bytes('You are DSH.\n\nTerse — très.\n\n') })
    expect(systemDiff(side([identity, persona, notes]), side([identity, notes])))
      .toMatchObject({ cause: 'section_removed', section: 'persona', offset: bytes('You are DSH.\n\n') })
  })

  it('gives the separator to the section after it: an appended or dropped last section is named, not the one before', () => {
    const tail = { name: 'tail', text: 'Tail.' }
    expect(systemDiff(side([identity, persona]), side([identity, persona, tail])))
      .toMatchObject({ cause: 'section_added', section: 'tail', offset: bytes(joinSections([identity, persona])) })
    expect(systemDiff(side([identity, persona]), side([identity])))
      .toMatchObject({ cause: 'section_removed', section: 'persona', offset: bytes(identity.text) })
  })

  it('names a section that grew or shrank at its end, though the other side has a separator there', () => {
    const longer = { name: 'identity', text: 'You are DSH. Really.' }
    const offset = bytes(identity.text)
    expect(systemDiff(side([identity, persona]), side([longer, persona]))).toMatchObject({ cause: 'section_changed', section: 'identity', offset })
    expect(systemDiff(side([longer, persona]), side([identity, persona]))).toMatchObject({ cause: 'section_changed', section: 'identity', offset })
  })

  it('names the byte alone without sections, and the known side\'s section with one side known', () => {
    const edited = [identity, { name: 'persona', text: 'Chatty.' }]
    expect(systemDiff(text([identity, persona]), text(edited))).toEqual({ part: 'system', cause: 'system_changed', offset: bytes('You are DSH.\n\n'), section: undefined })
    expect(systemDiff(text([identity, persona]), side(edited))).toMatchObject({ cause: 'system_changed', section: 'persona' })
    expect(systemDiff(side([identity, persona]), text(edited))).toMatchObject({ cause: 'system_changed', section: 'persona' })
  })

  describe('blames the one section that changed (texts start with a letter of their own)', () => {
    const names = ['a', 'b', 'c', 'd', 'e']
    const tail = fc.string({ unit: fc.constantFrom('x', 'y', 'é', '😀', ' '), maxLength: 6 })
    const sections = fc.uniqueArray(fc.record({ name: fc.constantFrom(...names), tail }), { selector: (s) => s.name, minLength: 1, maxLength: 5 })
      .map((list) => list.map(({ name, tail }) => ({ name, text: `${name.toUpperCase()}${tail}` })))

    it('an edit', () => {
      fc.assert(fc.property(sections, fc.nat(), tail, (list, pick, edit) => {
        const index = pick % list.length
        const target = list[index]!
        const changed = { ...target, text: `${target.name.toUpperCase()}${edit}` }
        fc.pre(changed.text !== target.text)
        const after = list.map((section, at) => (at === index ? changed : section))
        const found = systemDiff(side(list), side(after))!
        expect(found).toMatchObject({ cause: 'section_changed', section: target.name })
        expect(found.offset).toBe(firstByteDifference(joinSections(list), joinSections(after)))
      }))
    })

    it('an insertion and a removal', () => {
      fc.assert(fc.property(sections, fc.nat(), (list, pick) => {
        fc.pre(list.length > 1)
        const index = pick % list.length
        const without = list.filter((_, at) => at !== index)
        expect(systemDiff(side(without), side(list))).toMatchObject({ cause: 'section_added', section: list[index]!.name })
        expect(systemDiff(side(list), side(without))).toMatchObject({ cause: 'section_removed', section: list[index]!.name })
      }))
    })
  })
})

describe('firstByteDifference', () => {
  it('is the length of the longest common UTF-8 byte prefix', () => {
    const value = fc.string({ unit: fc.constantFrom('a', 'b', 'é', 'è', '😀', '😁', '\n'), maxLength: 10 })
    fc.assert(fc.property(value, value, (a, b) => {
      const offset = firstByteDifference(a, b)
      if (a === b) {
        expect(offset).toBeUndefined()
        return
      }
      const left = Buffer.from(a)
      const right = Buffer.from(b)
      expect(left.subarray(0, offset).equals(right.subarray(0, offset))).toBe(true)
      expect(offset === left.length || offset === right.length || left[offset!] !== right[offset!]).toBe(true)
    }))
  })

  it('counts bytes, not UTF-16 units, and can stop inside a character', () => {
    expect(firstByteDifference('très', 'trés')).toBe(3)
    expect(firstByteDifference('😀', '😁')).toBe(3)
  })
})
