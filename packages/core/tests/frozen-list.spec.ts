import { describe, expect, it } from 'vitest'
import { baseOf, deepFreeze, derive, extendList, isDeepFrozen } from '../src/index.ts'

describe('extended frozen lists', () => {
  it('extendList returns a deep-frozen list that remembers the list it extends', () => {
    const first = extendList(deepFreeze([] as object[]), [{ a: 1 }])
    const second = extendList(first, [{ b: [2] }])
    expect(second).toEqual([{ a: 1 }, { b: [2] }])
    expect(isDeepFrozen(second)).toBe(true)
    expect(Object.isFrozen((second[1] as { b: number[] }).b)).toBe(true)
    expect(baseOf(second)).toBe(first)
    expect(baseOf(first)).toBeUndefined()
  })

  it('derive walks only the items added since the list it extends', () => {
    const cache = new WeakMap<readonly number[], number>()
    const walked: number[] = []
    const sum = (list: readonly number[]) => derive(list, cache, () => 0, (value, items, from) => {
      for (let index = from; index < items.length; index++) { walked.push(items[index]); value += items[index] }
      return value
    })
    const a = extendList(deepFreeze([] as number[]), [1, 2])
    const b = extendList(a, [3])
    expect(sum(a)).toBe(3)
    expect(sum(b)).toBe(6)
    expect(sum(b)).toBe(6)
    expect(walked).toEqual([1, 2, 3])
  })
})
