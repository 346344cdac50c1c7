import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FrozenList, baseOf, deepFreeze, derive, extendList, isDeepFrozen } from '../src/index.ts'

describe('FrozenList', () => {
  it('reads like a frozen array: length, at() with negative indexes, iteration, slice, JSON', () => {
    const list = FrozenList.of([{ n: 1 }, { n: 2 }, { n: 3 }])
    expect(list.length).toBe(3)
    expect(list.at(0)).toEqual({ n: 1 })
    expect(list.at(-1)).toEqual({ n: 3 })
    expect(list.at(3)).toBeUndefined()
    expect(list.at(-4)).toBeUndefined()
    expect([...list]).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
    expect(list.slice(1)).toEqual([{ n: 2 }, { n: 3 }])
    expect(list.slice(-2, -1)).toEqual([{ n: 2 }])
    expect(list.slice(2, 1)).toEqual([])
    expect(JSON.stringify({ list })).toBe('{"list":[{"n":1},{"n":2},{"n":3}]}')
    expect(Array.isArray(list)).toBe(false)
  })

  it('is frozen with its items, and a deep freeze of what holds it leaves later appends working', () => {
    const item = { nested: { value: [1] } }
    const list = FrozenList.of([item])
    expect(Object.isFrozen(list)).toBe(true)
    expect(Object.isFrozen(item.nested.value)).toBe(true)
    expect(isDeepFrozen(list)).toBe(true)
    expect(() => { (list as unknown as { length: number }).length = 0 }).toThrow(TypeError)
    deepFreeze({ request: list })
    const longer = list.append([{ nested: { value: [2] } }])
    expect(longer.length).toBe(2)
    expect(Object.isFrozen(longer.at(1)!.nested)).toBe(true)
    expect(longer.toArray()).toEqual([{ nested: { value: [1] } }, { nested: { value: [2] } }])
    expect(Object.isFrozen(longer.toArray())).toBe(true)
    expect(longer.toArray()).toBe(longer.toArray())
  })

  it('keeps every list\'s items whatever is appended to it or to the lists it came from (property)', () => {
    // Each operation appends to one of the lists made so far (by index), like a session's history and
    // any older request that still holds an earlier list.
    const operation = fc.record({ from: fc.nat(), added: fc.array(fc.integer(), { maxLength: 4 }) })
    fc.assert(fc.property(fc.array(fc.integer(), { maxLength: 4 }), fc.array(operation, { maxLength: 30 }), (start, operations) => {
      const lists = [FrozenList.of(start)]
      const models = [[...start]]
      for (const { from, added } of operations) {
        const index = from % lists.length
        lists.push(lists[index]!.append(added))
        models.push([...models[index]!, ...added])
      }
      lists.forEach((list, index) => {
        expect([...list]).toEqual(models[index])
        expect(list.length).toBe(models[index]!.length)
        expect(list.slice()).toEqual(models[index])
        for (let at = 0; at < list.length; at++) expect(list.at(at)).toBe(models[index]![at])
      })
    }), { numRuns: 200 })
  })

  it('extendList extends a FrozenList in place of a copy, and derive carries values forward along it', () => {
    const cache = new WeakMap<FrozenList<number>, number>()
    const walked: number[] = []
    const sum = (list: FrozenList<number>) => derive(list, cache, () => 0, (value, items, from) => {
      for (let index = from; index < items.length; index++) { walked.push(items.at(index)!); value += items.at(index)! }
      return value
    })
    const a = extendList(FrozenList.of<number>([]), [1, 2])
    const b = extendList(a, [3])
    expect(b).toBeInstanceOf(FrozenList)
    expect(baseOf(b)).toBe(a)
    expect(extendList(b, [])).toBe(b)
    expect(sum(a)).toBe(3)
    expect(sum(b)).toBe(6)
    expect(walked).toEqual([1, 2, 3])
  })
})
