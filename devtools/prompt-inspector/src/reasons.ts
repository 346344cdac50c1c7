import type { ToolSchema } from 'dsh-core'
import { ToolOrderPolicy } from 'dsh-system-prompt'

/** Why a tool stands where it does in the final list. */
export type PositionReason = 'listed' | 'group' | 'rest' | 'lexicographic' | 'moved' | 'added' | 'edited'

export interface ToolPosition {
  name: string
  /** 1-based position in the final (model-facing) list. */
  position: number
  /** 1-based position in the canonical list, before `system-prompt/assemble` listeners; null when a listener added it. */
  canonicalPosition: number | null
  reason: PositionReason
  /** The reason as a phrase, e.g. `listed position 2`. */
  detail: string
}

/**
 * Explains each final tool's position. Tools a listener kept in canonical relative order (the longest run
 * of canonical positions that still increases) are explained by the order policy; the others were moved.
 */
export function explainPositions(
  final: readonly ToolSchema[],
  canonical: readonly ToolSchema[],
  toolOrder: readonly string[] | undefined,
): { tools: ToolPosition[]; removed: string[] } {
  const policy = toolOrder ? new ToolOrderPolicy(toolOrder) : undefined
  const canonicalIndex = new Map(canonical.map((tool, index) => [tool.name, index]))
  const indices = final.map((tool) => canonicalIndex.get(tool.name))
  const inPlace = increasingRun(indices)
  const tools = final.map((tool, index): ToolPosition => {
    const at = indices[index]
    const base = { name: tool.name, position: index + 1, canonicalPosition: at === undefined ? null : at + 1 }
    if (at === undefined) return { ...base, reason: 'added', detail: 'added by a system-prompt/assemble listener' }
    if (!inPlace.has(index)) {
      return { ...base, reason: 'moved', detail: `moved by a system-prompt/assemble listener (canonical position ${at + 1})` }
    }
    if (tool !== canonical[at] && JSON.stringify(tool) !== JSON.stringify(canonical[at])) {
      return { ...base, reason: 'edited', detail: 'schema edited by a system-prompt/assemble listener' }
    }
    if (!policy) return { ...base, reason: 'lexicographic', detail: 'lexicographic (code-unit order)' }
    const placement = policy.placementOf(tool.name)
    if (placement.kind === 'listed') return { ...base, reason: 'listed', detail: `listed position ${placement.index + 1}` }
    if (placement.kind === 'group') return { ...base, reason: 'group', detail: `group \`${placement.entry}\`, position ${placement.index + 1}` }
    return { ...base, reason: 'rest', detail: `rest entry (code-unit order) at listed position ${placement.index + 1}` }
  })
  const kept = new Set(final.map((tool) => tool.name))
  return { tools, removed: canonical.filter((tool) => !kept.has(tool.name)).map((tool) => tool.name) }
}

/** Indices (into `values`) of one longest strictly increasing subsequence of the defined values. */
function increasingRun(values: readonly (number | undefined)[]): Set<number> {
  const tails: number[] = []
  const previous = new Array<number>(values.length).fill(-1)
  for (let index = 0; index < values.length; index++) {
    const value = values[index]
    if (value === undefined) continue
    let low = 0
    let high = tails.length
    while (low < high) {
      const middle = (low + high) >> 1
      if (values[tails[middle]]! < value) low = middle + 1
      else high = middle
    }
    previous[index] = low > 0 ? tails[low - 1] : -1
    tails[low] = index
  }
  const run = new Set<number>()
  for (let index = tails.length ? tails[tails.length - 1] : -1; index >= 0; index = previous[index]) run.add(index)
  return run
}
