import { toolsDiff } from 'dsh-system-prompt/bytes'
import type { ToolFingerprint } from './types.ts'

/** Why two tool lists differ first, as dsh-system-prompt's `toolsDiff` says. */
type PrefixToolCause = NonNullable<ReturnType<typeof toolsDiff>>['cause']

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
  const first = toolsDiff(toolPrefix(previous), toolPrefix(current))
  const lead = first && FIRST_REASON[first.cause]
  const reasons = lead ? [lead, ...TOOL_REASONS.filter((reason) => reason !== lead && found.has(reason))] : []
  return { reasons, addedTools, removedTools, changedTools }
}

/** `dsh-system-prompt`'s cause of the first differing tool, in this package's words. */
const FIRST_REASON: Record<PrefixToolCause, ToolReason> = {
  tool_order: 'tools_order_changed', tool_schema: 'tools_schema_changed', tool_added: 'tools_added', tool_removed: 'tools_removed',
}

/** Tools as `prefixDiff` compares them: the declaration hash stands for the declaration's bytes. */
function toolPrefix(tools: readonly ToolFingerprint[]) {
  return tools.map(({ name, hash }) => ({ name, digest: hash }))
}
