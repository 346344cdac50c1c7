import { compareCodeUnits, type ToolSchema } from 'dsh-core'

/** Thrown inside the merge when two lists hold the same name; the caller turns it into a message with owners. */
export class DuplicateName {
  constructor(readonly name: string) {}
}

function mergeTwo(a: readonly ToolSchema[], b: readonly ToolSchema[]): ToolSchema[] {
  const out: ToolSchema[] = new Array(a.length + b.length)
  let i = 0, j = 0, k = 0
  while (i < a.length && j < b.length) {
    const order = compareCodeUnits(a[i].name, b[j].name)
    if (order === 0) throw new DuplicateName(a[i].name)
    out[k++] = order < 0 ? a[i++] : b[j++]
  }
  while (i < a.length) out[k++] = a[i++]
  while (j < b.length) out[k++] = b[j++]
  return out
}

/**
 * Merges lists that are each sorted by code units into one sorted list, pairwise (O(N log k) for k
 * lists). Equal names can only meet in a merge, so duplicate detection costs nothing extra.
 */
export function mergeSorted(lists: readonly (readonly ToolSchema[])[]): ToolSchema[] {
  if (lists.length === 0) return []
  let level = lists as readonly (readonly ToolSchema[])[]
  while (level.length > 1) {
    const next: ToolSchema[][] = []
    for (let i = 0; i < level.length; i += 2) {
      next.push(i + 1 < level.length ? mergeTwo(level[i], level[i + 1]) : [...level[i]])
    }
    level = next
  }
  return level[0] as ToolSchema[]
}

