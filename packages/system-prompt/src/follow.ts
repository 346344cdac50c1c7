import { compareCodeUnits, type ToolSchema } from 'dsh-core'
import { DuplicateName } from './merge.ts'
import { indexOfName, lowerBound } from './sorted-search.ts'

/** What a provider's last answer left to compare the next one with. */
export interface LastAnswer {
  /** The provider's list as it was returned (or a copy of a mutable one). */
  readonly inputs: readonly unknown[]
  /** `inputs[i]`'s snapshot. */
  readonly inOrder: readonly ToolSchema[]
  /** The snapshots in code-unit order of their names. */
  readonly sorted: readonly ToolSchema[]
}

export interface Followed {
  inOrder: ToolSchema[]
  /** May be the last answer's own list when nothing was added (a `Prepared`'s lists are never changed). */
  sorted: readonly ToolSchema[]
  /** The snapshots that were not in the last answer: the only names not checked before. */
  added: ToolSchema[]
}

/**
 * The provider's new list `schemas` worked out from its last answer by walking both in step, without a hash
 * table: an object at the same place as before keeps its snapshot; one the old list holds next is a removal,
 * anything else is an addition (snapshotted with `snap`). Registries keep registration order, so a change of
 * a few tools is a few steps aside. The removed snapshots are found in the sorted list by binary search and
 * the added ones inserted the same way: O(N) for N tools, where a set of all snapshots cost more per tool the more tools
 * there were. Undefined when more than `budget` tools changed (the caller then sorts everything).
 * An object moved elsewhere in the list counts as removed and added, which comes to the same sorted list.
 */
export function follow(last: LastAnswer, schemas: readonly unknown[], snap: (schema: unknown) => ToolSchema, budget: number): Followed | undefined {
  const old = last.inputs
  const inOrder: ToolSchema[] = new Array(schemas.length)
  const removed: ToolSchema[] = []
  const added: ToolSchema[] = []
  let i = 0
  for (let j = 0; j < schemas.length;) {
    if (i < old.length && old[i] === schemas[j]) {
      inOrder[j++] = last.inOrder[i++]!
      continue
    }
    if (removed.length + added.length >= budget) return undefined
    if (i + 1 < old.length && old[i + 1] === schemas[j]) removed.push(last.inOrder[i++]!)
    else added.push(inOrder[j++] = snap(schemas[j - 1]))
  }
  while (i < old.length) {
    if (removed.length + added.length >= budget) return undefined
    removed.push(last.inOrder[i++]!)
  }
  const base = removed.length ? without(last.sorted, removed) : last.sorted
  if (!base) return undefined
  return { inOrder, sorted: added.length ? inserted(base, added.sort(byName)) : base, added }
}

/**
 * `added` (sorted, few) put into `base` (sorted) at the places binary search finds, the runs between copied
 * as they are: only O(k log N) names are read, so the cost does not depend on where the N snapshots lie in
 * memory. Throws `DuplicateName` when an added name is already there or comes twice.
 */
function inserted(base: readonly ToolSchema[], added: readonly ToolSchema[]): ToolSchema[] {
  const out: ToolSchema[] = []
  let from = 0
  for (let k = 0; k < added.length; k++) {
    const schema = added[k]!
    if (k > 0 && added[k - 1]!.name === schema.name) throw new DuplicateName(schema.name)
    const at = lowerBound(base, schema.name)
    if (at < base.length && base[at]!.name === schema.name) throw new DuplicateName(schema.name)
    for (let index = from; index < at; index++) out.push(base[index]!)
    out.push(schema)
    from = at
  }
  for (let index = from; index < base.length; index++) out.push(base[index]!)
  return out
}

const byName = (a: ToolSchema, b: ToolSchema) => compareCodeUnits(a.name, b.name)

/** `sorted` without `removed` (each found by binary search on its name); undefined if one is not there. */
function without(sorted: readonly ToolSchema[], removed: readonly ToolSchema[]): ToolSchema[] | undefined {
  const positions: number[] = []
  for (const schema of removed) {
    const position = indexOfName(sorted, schema.name)
    if (position < 0 || sorted[position] !== schema) return undefined
    positions.push(position)
  }
  positions.sort((a, b) => a - b)
  const out: ToolSchema[] = []
  let from = 0
  for (const position of positions) {
    if (position < from) return undefined
    for (let index = from; index < position; index++) out.push(sorted[index]!)
    from = position + 1
  }
  for (let index = from; index < sorted.length; index++) out.push(sorted[index]!)
  return out
}
