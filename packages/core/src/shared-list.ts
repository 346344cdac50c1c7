import { deepFreeze, registerDeepFrozen } from './freeze.ts'

/** What a reader of a list needs: its length, an item by index, iteration. Arrays are such lists, and so is `FrozenList`. */
export interface ReadonlyList<T> extends Iterable<T> {
  readonly length: number
  /** The item at `index`; a negative index counts back from the end; undefined outside the list. */
  at(index: number): T | undefined
}

/**
 * An immutable list of deep-frozen items that shares one append-only backing array with the lists it was
 * extended from, so extending a list by a few items costs those items, not a copy of the list. A list
 * only ever reads its first `length` slots; appending to a list that is no longer the longest one on its
 * backing array copies its slots first (once), so every list keeps its items whatever is appended later.
 * `JSON.stringify` writes it as an array; it is not an `Array` (`Array.isArray` is false).
 */
export class FrozenList<T> implements ReadonlyList<T> {
  readonly #items: T[]
  #array: readonly T[] | undefined
  readonly length: number

  private constructor(items: T[], length: number) {
    this.#items = items
    this.length = length
    Object.freeze(this)
    // Its items are deep-frozen and its backing array is private: a deep freeze of a request that holds
    // it has nothing left to walk (and must not freeze the backing array, which later lists extend).
    registerDeepFrozen(this)
  }

  /** A list of `items` (deep-frozen in place), on a backing array of its own. */
  static of<T>(items: Iterable<T>): FrozenList<T> {
    const copy = [...items]
    for (const item of copy) deepFreeze(item)
    return new FrozenList(copy, copy.length)
  }

  at(index: number): T | undefined {
    const at = Math.trunc(index) + (index < 0 ? this.length : 0)
    return at >= 0 && at < this.length ? this.#items[at] : undefined
  }

  /** This list followed by `added` (deep-frozen in place); this list itself when nothing is added. */
  append(added: readonly T[]): FrozenList<T> {
    if (added.length === 0) return this
    for (const item of added) deepFreeze(item)
    // Another list already extends this one on the shared array: take a backing array of our own.
    const items = this.#items.length === this.length ? this.#items : this.#items.slice(0, this.length)
    for (const item of added) items.push(item)
    return new FrozenList(items, items.length)
  }

  [Symbol.iterator](): Iterator<T> {
    const items = this.#items
    const length = this.length
    let index = 0
    return { next: () => index < length ? { value: items[index++]!, done: false } : { value: undefined, done: true } }
  }

  /** The items from `start` to `end` (exclusive, negative counting from the end) as a new plain array. */
  slice(start = 0, end = this.length): T[] {
    const from = clamp(start, this.length)
    const to = clamp(end, this.length)
    return from < to ? this.#items.slice(from, to) : []
  }

  /** The items as a deep-frozen array, made once per list. */
  toArray(): readonly T[] {
    return this.#array ??= registerDeepFrozen(Object.freeze(this.slice()))
  }

  toJSON(): readonly T[] {
    return this.toArray()
  }
}

function clamp(index: number, length: number): number {
  const at = Math.trunc(index)
  return at < 0 ? Math.max(0, length + at) : Math.min(at, length)
}
