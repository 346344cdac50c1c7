import { sectionAt } from './sections.ts'
import type { SectionFingerprint, ToolFingerprint } from './types.ts'

/** UTF-8 byte offset of the first difference between two texts; undefined when they are equal. */
export function firstByteDifference(a: string, b: string): number | undefined {
  if (a === b) return undefined
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  const length = Math.min(left.length, right.length)
  let offset = 0
  while (offset < length && left[offset] === right[offset]) offset++
  return offset
}

/**
 * The section to blame for a difference at byte `offset`. Each side names the section holding the offset
 * (when its sections are known and the offset is inside its text). Different names mean a section was
 * inserted or removed there: the one that exists unchanged on the other side is not the change.
 */
export function changedSection(
  previous: readonly SectionFingerprint[] | undefined,
  current: readonly SectionFingerprint[] | undefined,
  offset: number,
): string | undefined {
  const before = previous && sectionAt(previous, offset)
  const after = current && sectionAt(current, offset)
  if (!before || !after || before.name === after.name) return (after ?? before)?.name
  const unchanged = previous.some((span) => span.name === after.name && span.hash === after.hash)
  return unchanged ? before.name : after.name
}

/** How the tool lists differ, finer than the logged reasons (added/removed become `tools_schema_changed`). */
export type ToolReason = 'tools_order_changed' | 'tools_schema_changed' | 'tools_added' | 'tools_removed'

/** How two tool lists differ. `reasons` is empty when they are the same; otherwise the earliest comes first. */
export interface ToolChanges {
  reasons: ToolReason[]
  addedTools: string[]
  removedTools: string[]
  changedTools: string[]
}

const TOOL_REASONS: readonly ToolReason[] = ['tools_order_changed', 'tools_schema_changed', 'tools_added', 'tools_removed']

/**
 * Compares two declared tool lists. Names added and removed, names whose declaration hash changed, and
 * whether the names both lists share kept their relative order. The first reason is the one at the first
 * position where the lists differ, since that is where the cached prefix ends.
 */
export function compareTools(previous: readonly ToolFingerprint[], current: readonly ToolFingerprint[]): ToolChanges {
  const before = new Map(previous.map((tool) => [tool.name, tool.hash]))
  const after = new Set(current.map((tool) => tool.name))
  const addedTools = current.filter((tool) => !before.has(tool.name)).map((tool) => tool.name)
  const removedTools = previous.filter((tool) => !after.has(tool.name)).map((tool) => tool.name)
  const changedTools = current.filter((tool) => before.has(tool.name) && before.get(tool.name) !== tool.hash).map((tool) => tool.name)
  const sharedBefore = previous.filter((tool) => after.has(tool.name)).map((tool) => tool.name)
  const sharedAfter = current.filter((tool) => before.has(tool.name)).map((tool) => tool.name)
  const reordered = sharedBefore.some((name, index) => name !== sharedAfter[index])

  const found = new Set<ToolReason>()
  if (reordered) found.add('tools_order_changed')
  if (changedTools.length) found.add('tools_schema_changed')
  if (addedTools.length) found.add('tools_added')
  if (removedTools.length) found.add('tools_removed')
  const first = firstToolReason(previous, current, before, after)
  const reasons = first ? [first, ...TOOL_REASONS.filter((reason) => reason !== first && found.has(reason))] : []
  return { reasons, addedTools, removedTools, changedTools }
}

function firstToolReason(
  previous: readonly ToolFingerprint[],
  current: readonly ToolFingerprint[],
  before: ReadonlyMap<string, string>,
  after: ReadonlySet<string>,
): ToolReason | undefined {
  for (let index = 0; index < Math.max(previous.length, current.length); index++) {
    const was = previous[index]
    const now = current[index]
    if (was && now && was.name === now.name && was.hash === now.hash) continue
    if (!now) return 'tools_removed'
    if (!was) return 'tools_added'
    if (was.name === now.name) return 'tools_schema_changed'
    if (!before.has(now.name)) return 'tools_added'
    if (!after.has(was.name)) return 'tools_removed'
    return 'tools_order_changed'
  }
}
