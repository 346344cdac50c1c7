import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deepFreeze, frozenJsonCopy, isDeepFrozen } from '../src/index.ts'

describe('deepFreeze', () => {
  it('freezes the whole graph in place and returns the same reference', () => {
    const value = { list: [{ deep: { deeper: [1, 2] } }], map: { a: { b: 'c' } } }
    expect(deepFreeze(value)).toBe(value)
    for (const node of [value, value.list, value.list[0], value.list[0].deep, value.list[0].deep.deeper, value.map.a]) {
      expect(Object.isFrozen(node)).toBe(true)
    }
    expect(() => { (value.list[0].deep.deeper as number[]).push(3) }).toThrow(TypeError)
  })

  it('handles cycles and shared nodes', () => {
    const shared = { x: 1 }
    const value: any = { left: shared, right: shared }
    value.self = value
    deepFreeze(value)
    expect(Object.isFrozen(shared)).toBe(true)
    expect(Object.isFrozen(value)).toBe(true)
  })

  it('leaves AbortSignals, functions and typed arrays usable', () => {
    const controller = new AbortController()
    const resolve = () => 'ok'
    const bytes = new Uint8Array([1, 2])
    const value = { signal: controller.signal, history: { resolve }, bytes }
    deepFreeze(value)
    expect(Object.isFrozen(value.history)).toBe(true)
    expect(Object.isFrozen(controller.signal)).toBe(false)
    expect(Object.isFrozen(resolve)).toBe(false)
    controller.abort('stop')
    expect(value.signal.aborted).toBe(true)
    expect(value.signal.reason).toBe('stop')
    bytes[0] = 9
    expect(bytes[0]).toBe(9)
  })

  it('does not invoke getters', () => {
    let calls = 0
    const value = { get lazy() { calls++; return { x: 1 } } }
    deepFreeze(value)
    expect(calls).toBe(0)
    expect(Object.isFrozen(value)).toBe(true)
  })

  it('leaves primitives alone', () => {
    expect(deepFreeze(3)).toBe(3)
    expect(deepFreeze(null)).toBe(null)
  })
})

describe('frozenJsonCopy', () => {
  it('equals a JSON round trip for JSON-safe values, frozen all the way down', () => {
    const safe = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string(), fc.boolean(), fc.constant(null), fc.constant(-0), fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.array(tie('value')),
        fc.dictionary(fc.string(), fc.option(tie('value'), { nil: undefined })),
      ),
    })).value
    fc.assert(fc.property(safe, (value) => {
      const copy = frozenJsonCopy(value)
      expect(copy).toStrictEqual(JSON.parse(JSON.stringify(value)))
      expect(isDeepFrozen(copy)).toBe(true)
      if (copy && typeof copy === 'object') expect(copy).not.toBe(value)
    }))
  })

  it('copies a "__proto__" key as data, as JSON.parse does, instead of setting the prototype', () => {
    const value = JSON.parse('{"__proto__":{"polluted":true},"a":1}')
    const copy = frozenJsonCopy(value)
    expect(Object.keys(copy)).toEqual(['__proto__', 'a'])
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value))
  })
})
