import { deepFreeze } from 'dsh-core'
import { joinSections, sectionRanges, type RenderedSection } from 'dsh-system-prompt/bytes'
import { shortHash } from './hash.ts'
import type { SectionFingerprint } from './types.ts'

/**
 * The sections' byte spans and hashes in `system`, or undefined when the sections do not render to
 * exactly that text (they belong to another request, or someone edited the prompt after assembly).
 */
export function sectionSpans(sections: readonly RenderedSection[], system: string): SectionFingerprint[] | undefined {
  if (joinSections(sections) !== system) return undefined
  return sectionRanges(sections).map(({ name, start, end }, index) => ({ name, hash: shortHash(sections[index]!.text), start, end }))
}

/**
 * Recently assembled prompts by their rendered text, so a request (which carries only the text) can be
 * traced back to its sections. Bounded: the oldest prompt is forgotten first.
 */
export class SectionIndex {
  private readonly entries = new Map<string, readonly RenderedSection[]>()

  constructor(private readonly capacity = 32) {}

  /**
   * Remembers the sections behind their text. Sections equal to the ones already held for that text keep
   * the held (deep-frozen) array, so one prompt keeps one identity and its fingerprint is taken once.
   */
  remember(sections: readonly RenderedSection[]): void {
    const system = joinSections(sections)
    const held = this.entries.get(system)
    this.entries.delete(system)
    this.entries.set(system, held && sameSections(held, sections) ? held : deepFreeze(sections))
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
  }

  lookup(system: string): readonly RenderedSection[] | undefined {
    return this.entries.get(system)
  }
}

function sameSections(a: readonly RenderedSection[], b: readonly RenderedSection[]): boolean {
  return a.length === b.length && a.every((section, index) => section.name === b[index]!.name && section.text === b[index]!.text)
}
