import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../src/index.ts'

/** The same value with every object's keys in the order `pick` chooses. */
function permute(value: unknown, pick: () => number): unknown {
  if (Array.isArray(value)) return value.map((item) => permute(item, pick))
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value)
  for (let index = entries.length - 1; index > 0; index--) {
    const other = pick() % (index + 1)
    ;[entries[index], entries[other]] = [entries[other]!, entries[index]!]
  }
  const copy: Record<string, unknown> = {}
  for (const [key, member] of entries) Object.defineProperty(copy, key, { value: permute(member, pick), enumerable: true, writable: true, configurable: true })
  return copy
}

describe('canonicalJson', () => {
  it('gives one byte string for every key order of a value, equal to it as data', () => {
    fc.assert(fc.property(fc.jsonValue(), fc.infiniteStream(fc.nat()), (value, stream) => {
      const shuffled = permute(value, () => stream.next().value)
      expect(JSON.stringify(canonicalJson(shuffled))).toBe(JSON.stringify(canonicalJson(value)))
      expect(canonicalJson(value)).toEqual(value)
    }), { numRuns: 200, seed: 15 })
  })

  it('sorts keys by code units at every depth and keeps array order', () => {
    expect(JSON.stringify(canonicalJson({ b: [{ z: 1, a: 2 }, 3], B: null, a: { é: 1, e: 2 } }))).toBe('{"B":null,"a":{"e":2,"é":1},"b":[{"a":2,"z":1},3]}')
  })

  it('keeps a "__proto__" key as data and does not touch the input', () => {
    const input = JSON.parse('{"z":1,"__proto__":{"x":1}}')
    const out = canonicalJson(input) as Record<string, unknown>
    expect(Object.keys(out)).toEqual(['__proto__', 'z'])
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(Object.keys(input)).toEqual(['z', '__proto__'])
  })
})
