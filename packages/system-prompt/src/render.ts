import { quote } from 'dsh-core'
import { interpolate } from './interpolate.ts'
import type { AssembledSection, ContextSnapshotSection, PromptAssembly } from './types.ts'

/** What the rendered system prompt puts between two sections. */
export const SECTION_SEPARATOR = '\n\n'
const SEPARATOR_BYTES = Buffer.byteLength(SECTION_SEPARATOR)

/** One section as it appears in the rendered system prompt. */
export interface RenderedSection {
  name: string
  text: string
}

/** Where a section's text sits in the rendered system prompt: UTF-8 byte offsets, `end` exclusive. */
export interface SectionRange {
  name: string
  start: number
  end: number
}

/** One section's text in the prompt: interpolated unless `interpolate: false`; '' when it renders blank (and is dropped). */
export function renderSection(section: AssembledSection, variables: PromptAssembly['variables']): string {
  const text = section.interpolate === false ? section.text : interpolate(section.text, variables, `section ${quote(section.name)}`)
  return text.trim() === '' ? '' : text
}

/** The system prompt text: each section rendered, blank ones dropped, joined by `SECTION_SEPARATOR`. */
export function renderPrompt(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): string {
  const parts: string[] = []
  for (const section of assembly.sections) {
    const text = renderSection(section, assembly.variables)
    if (text !== '') parts.push(text)
  }
  return parts.join(SECTION_SEPARATOR)
}

/** Each section as it appears in `renderPrompt(assembly)`, in order; blank sections are dropped. */
export function renderSections(assembly: Pick<PromptAssembly, 'sections' | 'variables'>): RenderedSection[] {
  const rendered: RenderedSection[] = []
  for (const section of assembly.sections) {
    const text = renderSection(section, assembly.variables)
    if (text !== '') rendered.push({ name: section.name, text })
  }
  return rendered
}

/** The prompt that rendered sections make: their texts joined by `SECTION_SEPARATOR`. */
export function joinSections(sections: readonly Pick<RenderedSection, 'text'>[]): string {
  return sections.map((section) => section.text).join(SECTION_SEPARATOR)
}

/** Where each rendered section lands in `joinSections(sections)`, in UTF-8 bytes (what providers cache). */
export function sectionRanges(sections: readonly RenderedSection[]): SectionRange[] {
  const ranges: SectionRange[] = []
  let start = 0
  for (const { name, text } of sections) {
    const end = start + Buffer.byteLength(text)
    ranges.push({ name, start, end })
    start = end + SEPARATOR_BYTES
  }
  return ranges
}

/**
 * The section that holds byte `offset` of the rendered prompt; undefined past the end. A separator byte
 * belongs to the section after it: that section is why the separator is there, so a section appended or
 * dropped at the end is named by the first byte that differs (its separator), not the unchanged one before.
 */
export function sectionAt<R extends Pick<SectionRange, 'start' | 'end'>>(ranges: readonly R[], offset: number): R | undefined {
  return ranges.find((range) => range.end > offset)
}

/** The opening line of a runtime-context snapshot: a later snapshot replaces every earlier one. */
export const CONTEXT_SNAPSHOT_HEADING = 'Runtime context as of this message (it replaces any earlier runtime context):'

/** Each runtime context interpolated, in order; blank ones are dropped. */
export function renderContextSections(assembly: Pick<PromptAssembly, 'contexts' | 'variables'>): ContextSnapshotSection[] {
  const rendered: ContextSnapshotSection[] = []
  for (const context of assembly.contexts ?? []) {
    const text = interpolate(context.text, assembly.variables, `context ${quote(context.name)}`)
    if (text.trim() !== '') rendered.push({ name: context.name, text })
  }
  return rendered
}

/** The snapshot text that rendered contexts make: the heading, then their texts joined by blank lines; '' when none. */
export function joinContextSections(sections: readonly ContextSnapshotSection[]): string {
  if (!sections.length) return ''
  return [CONTEXT_SNAPSHOT_HEADING, ...sections.map((section) => section.text)].join(SECTION_SEPARATOR)
}

/** The runtime-context snapshot of an assembly ('' when it has none): what the loop sends as a user message. */
export function renderContextSnapshot(assembly: Pick<PromptAssembly, 'contexts' | 'variables'>): string {
  return joinContextSections(renderContextSections(assembly))
}
