import { deepFreeze, type ToolSchema } from 'dsh-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type GenerateOptions } from 'dsh-llm'
import type { PromptAssembly } from 'dsh-system-prompt'
import { renderPrompt, renderSections } from 'dsh-system-prompt/bytes'
import { fingerprint } from '../src/index.ts'
import { sectionSpans } from '../src/sections.ts'

const tool = (name: string, parameters: object = { type: 'object' }): ToolSchema => ({ name, description: `${name} tool`, parameters })
const request = (overrides: Partial<GenerateOptions> = {}): GenerateOptions => ({
  model: 'm', system: 'héllo\n\nworld', tools: [tool('read'), tool('write')], messages: [], ...overrides,
})
const SECTIONS = [{ name: 'a', text: 'héllo' }, { name: 'b', text: 'world' }]

describe('fingerprint', () => {
  it('records the model, short sha256 hashes, tool names in order and the flags', () => {
    const print = fingerprint(request({ deferredTools: ['write'] }), { toolUpdateMode: 'addition-only' })
    expect(print.model).toBe('m')
    expect(print.systemHash).toMatch(/^[0-9a-f]{16}$/)
    expect(print.systemBytes).toBe(13)
    expect(print.tools.map((entry) => entry.name)).toEqual(['read', 'write'])
    for (const entry of print.tools) expect(entry.hash).toMatch(/^[0-9a-f]{16}$/)
    expect(print.deferredTools).toEqual(['write'])
    expect(print.toolUpdateMode).toBe('addition-only')
    expect(print).not.toHaveProperty('sections')
  })

  it('is taken once per frozen header: any changed input of the same tool list gives a fresh fingerprint', () => {
    const tools = deepFreeze([tool('read'), tool('write')])
    const sections = deepFreeze(SECTIONS.map((section) => ({ ...section })))
    const first = fingerprint(request({ tools }), { sections })
    expect(fingerprint(request({ tools }), { sections })).toBe(first)
    expect(Object.isFrozen(first)).toBe(true)
    const variants = [
      fingerprint(request({ tools, model: 'n' }), { sections }),
      fingerprint(request({ tools, system: 'héllo\n\nthere' }), { sections }),
      fingerprint(request({ tools, deferredTools: deepFreeze(['write']) }), { sections }),
      fingerprint(request({ tools }), { sections: deepFreeze(SECTIONS.map((section) => ({ ...section }))) }),
      fingerprint(request({ tools }), { sections, toolUpdateMode: 'in-history' }),
    ]
    for (const print of variants) expect(print).not.toBe(first)
    expect(variants.map((print) => print.model)).toEqual(['n', 'm', 'm', 'm', 'm'])
    expect(variants[1]!.systemHash).not.toBe(first.systemHash)
    expect(variants[1]).not.toHaveProperty('sections')
    expect(variants[2]!.deferredTools).toEqual(['write'])
    expect(variants[4]!.toolUpdateMode).toBe('in-history')
    // An unfrozen tool list may change in place, so it is never taken from memory.
    const open = [tool('read')]
    const before = fingerprint(request({ tools: open }))
    open.push(tool('write'))
    expect(fingerprint(request({ tools: open })).tools.map((entry) => entry.name)).toEqual(['read', 'write'])
    expect(before.tools).toHaveLength(1)
  })

  it('is the same for the same bytes and leaves a frozen request untouched', () => {
    const frozen = deepFreeze(request())
    expect(fingerprint(frozen)).toEqual(fingerprint(request()))
    expect(fingerprint(frozen)).toEqual(fingerprint(frozen))
    expect(fingerprint(request()).deferredTools).toEqual([])
    expect(fingerprint(request())).not.toHaveProperty('toolUpdateMode')
  })

  it('changes a tool hash with its schema, but not with its key order alone', () => {
    const [plain] = fingerprint(request({ tools: [tool('read', { type: 'object', required: [], properties: { a: { type: 'string', description: 'A.' } } })] })).tools
    const [extra] = fingerprint(request({ tools: [tool('read', { type: 'object', required: ['path'], properties: { a: { type: 'string', description: 'A.' } } })] })).tools
    const [swapped] = fingerprint(request({ tools: [tool('read', { properties: { a: { description: 'A.', type: 'string' } }, required: [], type: 'object' })] })).tools
    const [reordered] = fingerprint(request({ tools: [tool('read', { type: 'object', required: [], properties: { a: { type: 'string', description: 'B.' } } })] })).tools
    expect(extra!.hash).not.toBe(plain!.hash)
    expect(reordered!.hash).not.toBe(plain!.hash)
    expect(swapped!.hash).toBe(plain!.hash)
  })

  it('does not alias the request’s deferred list', () => {
    const deferredTools = ['write']
    const print = fingerprint(request({ deferredTools }))
    deferredTools.push('read')
    expect(print.deferredTools).toEqual(['write'])
  })

  it('gives each section its UTF-8 byte span and hash', () => {
    const print = fingerprint(request(), { sections: SECTIONS })
    expect(print.sections).toEqual([
      { name: 'a', hash: expect.stringMatching(/^[0-9a-f]{16}$/), start: 0, end: 6 },
      { name: 'b', hash: expect.stringMatching(/^[0-9a-f]{16}$/), start: 8, end: 13 },
    ])
  })

  it('ignores sections that do not render to the request’s system prompt', () => {
    expect(fingerprint(request({ system: 'héllo\n\nworld!' }), { sections: SECTIONS })).not.toHaveProperty('sections')
    expect(sectionSpans(SECTIONS, 'héllo\nworld')).toBeUndefined()
    expect(sectionSpans([], '')).toEqual([])
  })
})

describe('renderSections', () => {
  it('renders each section as the prompt does: interpolated, empty ones dropped', () => {
    const sections: PromptAssembly['sections'] = [
      { name: 'a', text: 'Model {{model}}.' }, { name: 'blank', text: '  ' }, { name: 'c', text: '{{raw}}', interpolate: false as const },
    ]
    expect(renderSections({ sections, variables: { model: 'm' } })).toEqual([{ name: 'a', text: 'Model m.' }, { name: 'c', text: '{{raw}}' }])
  })

  it('joins back into exactly the rendered prompt, with spans that cut it at the sections', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'é', '😀', ' ', '\n', '{', '}', 'x') , maxLength: 12 })
    fc.assert(fc.property(fc.array(fc.record({ text, interpolate: fc.constant(false as const) }), { maxLength: 6 }), (drafts) => {
      const sections = drafts.map((draft, index) => ({ name: `s${index}`, ...draft }))
      const assembly = { sections, variables: {} }
      const system = renderPrompt(assembly)
      const rendered = renderSections(assembly)
      const spans = sectionSpans(rendered, system)!
      expect(spans).toBeDefined()
      const bytes = Buffer.from(system)
      expect(spans.map((span) => bytes.subarray(span.start, span.end).toString())).toEqual(rendered.map((section) => section.text))
    }))
  })
})
