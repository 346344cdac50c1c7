import type { ToolSchema } from 'dsh-core'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { classifyBreak, fingerprint } from 'dsh-cache-break-detector'
import type { PromptAssembly } from 'dsh-system-prompt'
import { joinSections, renderSections as renderPromptSections, type RenderedSection } from 'dsh-system-prompt/bytes'
import { diffPrefixes } from '../src/diff.ts'
import type { PrefixSource } from '../src/sources.ts'
import { renderSections } from '../src/sections.ts'

/** One side of a pair: its tools, its sections, and whether its sections are known (an app file) or not (a session log). */
interface Side {
  tools: ToolSchema[]
  sections: RenderedSection[]
  known: boolean
}

const tool = fc.record({
  name: fc.constantFrom('alpha', 'beta', 'gamma', 'delta'),
  description: fc.constantFrom('Reads.', 'Writes.', 'Réécrit.'),
  parameters: fc.constantFrom({ type: 'object' }, { type: 'object', properties: { path: { type: 'string' } } }),
})
// texts that start with a letter (so none renders blank) and may hold blank lines, as a separator does
const text = fc.tuple(fc.constantFrom('A', 'B', 'é', '😀'), fc.string({ unit: fc.constantFrom('a', 'b', 'é', ' ', '\n'), maxLength: 6 }))
  .map(([first, rest]) => first + rest)
const side: fc.Arbitrary<Side> = fc.record({
  tools: fc.uniqueArray(tool, { selector: (entry) => entry.name, maxLength: 3 }),
  sections: fc.uniqueArray(fc.record({ name: fc.constantFrom('identity', 'persona', 'rules', 'notes'), text }), { selector: (entry) => entry.name, maxLength: 4 }),
  known: fc.boolean(),
})
/** A second side made from the first by small edits, so that most pairs share a long prefix. */
const pair = side.chain((a) => fc.record({
  a: fc.constant(a),
  b: fc.oneof(side, fc.record({
    tools: fc.oneof(fc.constant(a.tools), fc.shuffledSubarray(a.tools), side.map((other) => other.tools)),
    sections: fc.oneof(
      fc.constant(a.sections),
      fc.shuffledSubarray(a.sections).map((kept) => a.sections.filter((section) => kept.includes(section))),
      fc.tuple(fc.nat(), text).map(([at, edit]) => a.sections.map((section, index) => (index === at % Math.max(1, a.sections.length) ? { ...section, text: edit } : section))),
    ),
    known: fc.boolean(),
  })),
}))

/** The side as `dsh-prompt diff` loads it: an app file with its sections, or a session log with text only. */
function source({ tools, sections, known }: Side): PrefixSource {
  const assembly = { sections: sections.map((section) => ({ ...section, interpolate: false })), contexts: [], tools, variables: {} } as unknown as PromptAssembly
  const header = { model: 'm', system: joinSections(renderPromptSections(assembly)), tools }
  const orders = new Map(sections.map((section, index) => [section.name, index]))
  return { input: 'x', kind: known ? 'app' : 'session', header, sections: known ? renderSections(assembly, orders) : null, event: null }
}

/** The side as `dsh-cache-break-detector` sees its request: the fingerprint (with section spans when known) and the text. */
function observation({ tools, sections, known }: Side, read: number): Parameters<typeof classifyBreak>[0] {
  const system = joinSections(sections)
  return { fingerprint: fingerprint({ model: 'm', system, tools }, known ? { sections } : {}), usage: { cacheReadTokens: read, cacheWriteTokens: 0 }, system }
}

describe('the inspector and the cache-break detector', () => {
  it('name the same first difference for any pair of prefixes: tool cause, or system byte offset and section', () => {
    fc.assert(fc.property(pair, ({ a, b }) => {
      const inspected = diffPrefixes(source(a), source(b)).divergence
      const detected = classifyBreak(observation(a, 6000), observation(b, 0))!
      if (!inspected) {
        expect(detected.reason).toBe('likely_provider_ttl_or_eviction')
      } else if (inspected.part === 'tools') {
        expect(detected.reason).toBe(inspected.tool!.cause === 'order' ? 'tools_order_changed' : 'tools_schema_changed')
      } else {
        expect(detected.reason).toBe('system_changed')
        expect({ offset: detected.offset, section: detected.section }).toEqual({ offset: inspected.system!.offset, section: inspected.system!.section ?? undefined })
      }
    }), { numRuns: 500 })
  })
})
