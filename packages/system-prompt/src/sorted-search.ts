import { compareCodeUnits } from 'dsh-core'

/** The first index of `sorted` (by `name`, code-unit order) whose name is not below `name`. */
export function lowerBound(sorted: readonly { name: string }[], name: string): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >> 1
    if (compareCodeUnits(sorted[middle]!.name, name) < 0) low = middle + 1
    else high = middle
  }
  return low
}

/** The index of the item named `name` in `sorted` (names distinct, code-unit order), or -1. */
export function indexOfName(sorted: readonly { name: string }[], name: string): number {
  const at = lowerBound(sorted, name)
  return at < sorted.length && sorted[at]!.name === name ? at : -1
}
