import { interpolate } from 'dsh-system-prompt'
import type { PromptAssembly } from 'dsh-system-prompt'
import { sha256 } from './fingerprint.ts'

/** One section as it appears in the rendered system prompt. */
export interface RenderedSection {
  name: string
  /** The registered order; null for a section a `system-prompt/assemble` listener added. */
  order: number | null
  text: string
  /** Where the section starts in the system prompt, in UTF-16 code units. */
  offset: number
  sha256: string
}

/** The separator `renderPrompt` puts between sections. */
export const SECTION_SEPARATOR = '\n\n'

/**
 * Renders each section the way `renderPrompt` does (interpolated unless complete, dropped when blank)
 * and records where it lands, so an offset in the system prompt can be named by its section.
 */
export function renderSections(assembly: PromptAssembly, orders: ReadonlyMap<string, number>): RenderedSection[] {
  const sections: RenderedSection[] = []
  let offset = 0
  for (const section of assembly.sections) {
    const text = section.complete ? section.text : interpolate(section.text, assembly.variables, `section ${JSON.stringify(section.name)}`)
    if (text.trim() === '') continue
    if (sections.length) offset += SECTION_SEPARATOR.length
    sections.push({ name: section.name, order: orders.get(section.name) ?? null, text, offset, sha256: sha256(text) })
    offset += text.length
  }
  return sections
}

/**
 * The section that holds code unit `offset` of the system prompt. The separator after a section counts as
 * that section's end, and an offset past the end belongs to the last section.
 */
export function sectionAt(sections: readonly Pick<RenderedSection, 'name' | 'offset'>[], offset: number): string | undefined {
  let found: string | undefined
  for (const section of sections) {
    if (section.offset > offset) break
    found = section.name
  }
  return found
}
