import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { deepFreeze, isDeepFrozen } from '../src/freeze.ts'
import { checkPlainJson, frozenPlainJsonCopy } from '../src/plain-json.ts'

const isFrozenThrough = (value: unknown): boolean =>
  value === null || typeof value !== 'object' || (Object.isFrozen(value) && Object.values(value).every(isFrozenThrough))

describe('frozenPlainJsonCopy', () => {
  it('gives what a JSON round trip gives, frozen at every depth, its root registered', () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (value) => {
      const copy = frozenPlainJsonCopy(value, 'parameters')
      expect(JSON.stringify(copy)).toBe(JSON.stringify(value))
      expect(copy).toEqual(JSON.parse(JSON.stringify(value)))
      expect(isFrozenThrough(copy)).toBe(true)
      expect(isDeepFrozen(copy)).toBe(true)
    }))
  })

  it('drops undefined members, turns -0 into 0 and keeps "__proto__" as data', () => {
    const copy = frozenPlainJsonCopy(JSON.parse('{"__proto__":{"a":1},"n":0}'), 'p') as Record<string, unknown>
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(['__proto__', 'n'])
    expect(Object.is((frozenPlainJsonCopy({ z: -0, u: undefined }, 'p') as { z: number }).z, 0)).toBe(true)
    expect(Object.keys(frozenPlainJsonCopy({ z: -0, u: undefined }, 'p'))).toEqual(['z'])
  })

  it('names the first node that is not plain JSON, as the check alone does', () => {
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    const cases: [unknown, string][] = [
      [{ a: { b: [1, NaN] } }, 'parameters.a.b[1] is NaN, which JSON cannot carry'],
      [{ a: [undefined] }, 'parameters.a[0] is undefined'],
      [{ f: () => 1 }, 'parameters.f is a function'],
      [{ d: new Date(0) }, 'parameters.d is a Date, not a plain object'],
      [cyclic, 'parameters.self refers back to itself'],
    ]
    for (const [value, message] of cases) {
      expect(() => frozenPlainJsonCopy(value, 'parameters')).toThrow(message)
      expect(() => checkPlainJson(value, 'parameters')).toThrow(message)
    }
  })
})

describe('frozenPlainJsonCopy of a value deep-frozen already', () => {
  it('returns that very value, still checked', () => {
    const shared = deepFreeze({ type: 'object', properties: { a: { type: 'string' } } })
    expect(frozenPlainJsonCopy(shared, 'parameters')).toBe(shared)
    const bad = deepFreeze({ type: 'object', n: NaN })
    expect(() => frozenPlainJsonCopy(bad, 'parameters')).toThrow('parameters.n is NaN, which JSON cannot carry')
  })
})
