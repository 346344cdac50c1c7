import { frozenConcat } from './freeze.ts'
import { FrozenList, type ReadonlyList } from './shared-list.ts'

/**
 * Which frozen list each frozen list was built from by appending. A conversation's history grows by a few
 * messages per step; knowing that the new list extends the last one lets every reader (projection, token
 * estimate) carry its result forward instead of walking the whole history again. Held weakly: a list
 * that nobody holds any more is forgotten.
 */
const bases = new WeakMap<ReadonlyList<unknown>, WeakRef<ReadonlyList<unknown>>>()

/**
 * A deep-frozen list of `previous`'s items then `added`'s, remembered as an extension of `previous`. A
 * `FrozenList` is extended on its shared backing array (the cost of `added`); an array is copied.
 */
export function extendList<T>(previous: FrozenList<T>, added: readonly T[]): FrozenList<T>
export function extendList<T>(previous: readonly T[], added: readonly T[]): readonly T[]
export function extendList<T>(previous: ReadonlyList<T>, added: readonly T[]): ReadonlyList<T>
export function extendList<T>(previous: ReadonlyList<T>, added: readonly T[]): ReadonlyList<T> {
  if (previous instanceof FrozenList && added.length === 0) return previous
  const list = previous instanceof FrozenList ? previous.append(added) : frozenConcat(previous as readonly T[], added)
  if (previous.length) bases.set(list, new WeakRef(previous))
  return list
}

/** The list `list` was built from by `extendList`, while it is still alive. */
export function baseOf<L extends ReadonlyList<unknown>>(list: L): L | undefined {
  return bases.get(list)?.deref() as L | undefined
}

/**
 * A value derived from a frozen list, computed once per list and carried forward along extensions:
 * `extend(value, list, from)` adds the items from index `from` to the value of the list's first `from`
 * items. Lists that are not frozen are computed in full every time.
 */
export function derive<L extends ReadonlyList<unknown>, R>(
  list: L,
  cache: WeakMap<L, R>,
  empty: () => R,
  extend: (value: R, list: L, from: number) => R,
): R {
  const known = cache.get(list)
  if (known !== undefined) return known
  const base = baseOf(list)
  const prior = base && cache.get(base)
  const value = prior !== undefined ? extend(prior, list, base!.length) : extend(empty(), list, 0)
  if (Object.isFrozen(list)) cache.set(list, value)
  return value
}
