import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { CodedError, compareCodeUnits, describeValue, listNames, messageOf, oneLine, quote, rawService } from 'dsh-core'

/** The bounds dsh-core's README states for quoted values and lists of names. */
const QUOTED_MAX = 1000
const LIST_MAX_BYTES = 1024
const LISTED_NAME_MAX = 120

describe('message helpers', () => {
  it('quotes strings as JSON and prints other values as they are', () => {
    expect(quote('a "b"\n')).toBe('"a \\"b\\"\\n"')
    expect(quote(42)).toBe('42')
    expect(quote(undefined)).toBe('undefined')
  })

  it('names non-scalar values by kind', () => {
    expect(describeValue('x')).toBe('"x"')
    expect(describeValue(3n)).toBe('3n')
    expect(describeValue(null)).toBe('null')
    expect(describeValue([1])).toBe('an array')
    expect(describeValue({ a: 1 })).toBe('an object')
    expect(describeValue(() => 1)).toBe('a function')
  })

  it('caps a long list of names and says how many were left out', () => {
    expect(listNames([])).toBe('(none)')
    expect(listNames(new Set(['a', 'b']))).toBe('a, b')
    expect(listNames(['a', 'b', 'c', 'd'], 2)).toBe('a, b, … and 2 more')
  })

  it('quotes at most QUOTED_MAX characters of a string and says how long it is', () => {
    expect(quote('a"b')).toBe('"a\\"b"')
    const long = 'x'.repeat(QUOTED_MAX + 1)
    expect(quote(long)).toBe(`"${'x'.repeat(QUOTED_MAX - 1)}…" (${QUOTED_MAX + 1} characters)`)
    expect(describeValue(long)).toBe(quote(long))
  })

  it('keeps a list under LIST_MAX_BYTES however many or however long the names, counting the rest', () => {
    const many = Array.from({ length: 10_000 }, (_, index) => `"unknown_tool_${index}"`)
    const list = listNames(many, Infinity)
    expect(Buffer.byteLength(list)).toBeLessThanOrEqual(LIST_MAX_BYTES + 30)
    const shown = list.split(', ').length - 1
    expect(list).toMatch(new RegExp(`, … and ${10_000 - shown} more$`))
    const huge = listNames(['x'.repeat(1_000_000), 'ü'.repeat(500), 'b'])
    expect(huge).toBe(`${'x'.repeat(LISTED_NAME_MAX - 1)}…, ${'ü'.repeat(LISTED_NAME_MAX - 1)}…, b`)
    expect(listNames(Array.from({ length: 100 }, () => 'ü'.repeat(200))).length).toBeLessThan(LIST_MAX_BYTES)
  })

  it('makes text one line: breaks and the spacing around them become one space, other spacing stays', () => {
    expect(oneLine('  invalid config:\n  - a\r\n\n  - b  ')).toBe('invalid config: - a - b')
    expect(oneLine('col  a\tb\rc\u2028d')).toBe('col  a\tb c d')
    expect(oneLine('abcdef', 4)).toBe('abc…')
    expect(oneLine('abcd', 4)).toBe('abcd')
  })

  it('cuts between characters, never inside a surrogate pair', () => {
    expect(oneLine('ab\u{1F600}cd', 4)).toBe('ab…')
    expect(oneLine('abc\u{1F600}de', 6)).toBe('abc\u{1F600}…')
    expect(oneLine('\u{1F600}\u{1F600}', 2)).toBe('…')
  })

  it('makes every line of any text one line, within its limit', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\r', '\t', '\u2028') }), fc.integer({ min: 1, max: 20 }), (text, max) => {
      const line = oneLine(text, max)
      expect(line).not.toMatch(/[\r\n\u2028\u2029]/)
      expect(line.length).toBeLessThanOrEqual(max)
      expect(line).toBe(line.trim())
    }))
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\u{1F600}', '\u4E2D') }), fc.integer({ min: 1, max: 12 }), (text, max) => {
      const line = oneLine(text, max)
      expect(line.length).toBeLessThanOrEqual(max)
      // every character of the line is whole: no lone surrogate survives a cut
      expect(line).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/)
    }))
  })

  it('turns any thrown value into one line of text', () => {
    expect(messageOf(new Error('boom'))).toBe('boom')
    expect(messageOf('plain')).toBe('plain')
    expect(messageOf({ code: 1 })).toBe('{"code":1}')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(messageOf(cyclic)).toBe('an unprintable value')
  })
})

describe('compareCodeUnits', () => {
  it('agrees with the default sort, which compares UTF-16 code units, whatever the locale', () => {
    fc.assert(fc.property(fc.array(fc.string({ unit: 'binary' })), (names) => {
      expect([...names].sort(compareCodeUnits)).toEqual([...names].sort())
    }))
    expect(['b', 'B', 'é', '_'].sort(compareCodeUnits)).toEqual(['B', '_', 'b', 'é'])
  })
})

describe('rawService', () => {
  it('returns the object behind a Cordis tracing proxy, and a plain object as it is', () => {
    const target = { name: 'service' }
    const proxy = new Proxy(target, { get: (object, key) => key === Symbol.for('cordis.original') ? object : Reflect.get(object, key) })
    expect(rawService(proxy)).toBe(target)
    expect(rawService(target)).toBe(target)
  })
})

describe('CodedError', () => {
  it('is an Error with the code callers switch on and the cause it was given', () => {
    class SampleError extends CodedError<'BAD'> {
      override name = 'SampleError'
    }
    const cause = new Error('below')
    const error = new SampleError('BAD', 'it broke', { cause })
    expect(error).toBeInstanceOf(Error)
    expect([error.name, error.code, error.message, error.cause]).toEqual(['SampleError', 'BAD', 'it broke', cause])
  })
})
