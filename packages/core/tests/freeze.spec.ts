import { describe, expect, it } from 'vitest'
import { deepFreeze, frozenJsonCopy, isDeepFrozen } from '../src/index.ts'

describe('frozenJsonCopy', () => {
  it('copies like a JSON round trip, frozen at every depth, and registers the copy as deeply frozen', () => {
    const value = JSON.parse('{"a":{"b":[1,{"c":true}],"__proto__":{"d":null}},"e":-0}')
    value.skip = undefined
    const copy = frozenJsonCopy(value)
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value))
    expect(Object.keys(copy.a)).toEqual(['b', '__proto__'])
    expect(Object.is(copy.e, 0)).toBe(true)
    expect('skip' in copy).toBe(false)
    for (const node of [copy, copy.a, copy.a.b, copy.a.b[1], copy.a.__proto__]) expect(Object.isFrozen(node)).toBe(true)
    expect(isDeepFrozen(copy)).toBe(true)
    expect(copy.a).not.toBe(value.a)
    // an inner object is reached through the copy; deep-freezing it on its own still works and registers it
    expect(deepFreeze(copy.a.b)).toBe(copy.a.b)
    expect(isDeepFrozen(copy.a.b)).toBe(true)
  })
})
