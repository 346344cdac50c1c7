import { renderPrompt, type PromptAssembly } from 'dsh-system-prompt'
import { shortHash } from './hash.ts'
import type { RenderedSection, SectionFingerprint } from './types.ts'

/** What `renderPrompt` puts between two sections. Spans are checked against the real text, so drift shows. */
const SEPARATOR = '\n\n'
const SEPARATOR_BYTES = Buffer.byteLength(SEPARATOR)

/** Each section of an assembly as it appears in the rendered prompt; sections that render empty are dropped. */
export function renderSections(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): RenderedSection[] {
  const rendered: RenderedSection[] = []
  for (const section of assembly.sections) {
    // Rendering one section alone applies exactly the rules (interpolation, empty drop) of the whole prompt.
    const text = renderPrompt({ sections: [section], variables: assembly.variables })
    if (text !== '') rendered.push({ name: section.name, text })
  }
  return rendered
}

/** The rendered prompt the sections make. */
export function joinSections(sections: readonly RenderedSection[]): string {
  return sections.map((section) => section.text).join(SEPARATOR)
}

/**
 * The sections' byte spans and hashes in `system`, or undefined when the sections do not render to
 * exactly that text (they belong to another request, or someone edited the prompt after assembly).
 */
export function sectionSpans(sections: readonly RenderedSection[], system: string): SectionFingerprint[] | undefined {
  if (joinSections(sections) !== system) return undefined
  const spans: SectionFingerprint[] = []
  let start = 0
  for (const { name, text } of sections) {
    const end = start + Buffer.byteLength(text)
    spans.push({ name, hash: shortHash(text), start, end })
    start = end + SEPARATOR_BYTES
  }
  return spans
}

/**
 * The section that owns byte `offset`: the first whose text ends after it. A separator belongs to the
 * section after it, since that section is why the separator is there.
 */
export function sectionAt(spans: readonly SectionFingerprint[], offset: number): SectionFingerprint | undefined {
  return spans.find((span) => span.end > offset)
}

/**
 * Recently assembled prompts by their rendered text, so a request (which carries only the text) can be
 * traced back to its sections. Bounded: the oldest prompt is forgotten first.
 */
export class SectionIndex {
  private readonly entries = new Map<string, readonly RenderedSection[]>()

  constructor(private readonly capacity = 32) {}

  remember(sections: readonly RenderedSection[]): void {
    const system = joinSections(sections)
    this.entries.delete(system)
    this.entries.set(system, sections)
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!)
  }

  lookup(system: string): readonly RenderedSection[] | undefined {
    return this.entries.get(system)
  }
}
