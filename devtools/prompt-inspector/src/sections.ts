import type { PromptAssembly } from 'dsh-system-prompt'
import { renderSections as renderPromptSections, sectionRanges, sha256 } from 'dsh-system-prompt/bytes'

/** One section as it appears in the rendered system prompt. */
export interface RenderedSection {
  name: string
  /** The registered order; null for a section a `system-prompt/assemble` listener added. */
  order: number | null
  text: string
  /** Where the section starts in the system prompt, in UTF-8 bytes. */
  offset: number
  sha256: string
}

/**
 * Each section as `dsh-system-prompt` renders it, with its registered order, where it lands (so an offset
 * in the system prompt can be named by its section) and its hash.
 */
export function renderSections(assembly: PromptAssembly, orders: ReadonlyMap<string, number>): RenderedSection[] {
  const rendered = renderPromptSections(assembly)
  const ranges = sectionRanges(rendered)
  return rendered.map(({ name, text }, index) => ({ name, order: orders.get(name) ?? null, text, offset: ranges[index]!.start, sha256: sha256(text) }))
}
