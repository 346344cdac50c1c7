import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { invalidUtf8Offset, isUtf8CutAtEnd } from '../src/index.ts'

describe('invalidUtf8Offset', () => {
  it('is undefined for any UTF-8 text, and the offset of a stray byte put anywhere in it', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), fc.constantFrom(0x80, 0xbf, 0xc0, 0xe9, 0xff), (before, after, stray) => {
      const head = Buffer.from(before)
      expect(invalidUtf8Offset(Buffer.concat([head, Buffer.from(after)]))).toBeUndefined()
      expect(invalidUtf8Offset(Buffer.concat([head, Buffer.from([stray]), Buffer.from(after)]))).toBe(head.length)
    }))
  })

  it('tells a character cut off at the end from a bad byte inside', () => {
    const cut = Buffer.from('ab語').subarray(0, 4)
    expect(invalidUtf8Offset(cut)).toBe(2)
    expect(isUtf8CutAtEnd(cut)).toBe(true)
    expect(isUtf8CutAtEnd(Buffer.from([0x61, 0xe9, 0x62]))).toBe(false)
  })
})
