import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SECTION_SEPARATOR, joinSections, renderPrompt, renderSections, sectionAt, sectionRanges } from '../src/render.ts'

describe('renderSections', () => {
  it('renders each section as the prompt does and joins back into exactly the rendered prompt', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', '\n', '{', '}', 'x'), maxLength: 12 })
    fc.assert(fc.property(fc.array(fc.record({ text, interpolate: fc.constant(false as const) }), { maxLength: 6 }), (drafts) => {
      const assembly = { sections: drafts.map((draft, index) => ({ name: `s${index}`, ...draft })), variables: {} }
      expect(joinSections(renderSections(assembly))).toBe(renderPrompt(assembly))
    }))
  })
})

describe('sectionRanges', () => {
  it('cuts the rendered prompt at each section, in UTF-8 bytes', () => {
    const sections = [{ name: 'a', text: 'héllo' }, { name: 'b', text: '😀!' }]
    const ranges = sectionRanges(sections)
    expect(SECTION_SEPARATOR).toBe('\n\n')
    expect(ranges).toEqual([{ name: 'a', start: 0, end: 6 }, { name: 'b', start: 8, end: 13 }])
    const bytes = Buffer.from(joinSections(sections))
    expect(ranges.map((range) => bytes.subarray(range.start, range.end).toString())).toEqual(['héllo', '😀!'])
  })
})

describe('sectionAt', () => {
  const ranges = [{ name: 'a', start: 0, end: 3 }, { name: 'b', start: 5, end: 8 }]
  const at = (offset: number) => sectionAt(ranges, offset)?.name

  it('gives a separator to the section after it and an offset past the end to none', () => {
    expect([0, 2, 3, 4, 5, 7, 8, 99].map((offset) => at(offset))).toEqual(['a', 'a', 'b', 'b', 'b', 'b', undefined, undefined])
  })
})
