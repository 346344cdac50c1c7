import { describe, expect, expectTypeOf, it } from 'vitest'
import { CodedError } from 'dsh-core'

type StoreCode = 'BUSY' | 'NOT_FOUND'

// Two packages' error classes over one root, as dsh-session and dsh-agent-loop declare theirs.
class StoreError extends CodedError<StoreCode, { id?: string }> {
  static override readonly marker = 'dsh-store-sample'
  override name = 'StoreError'
}
class LoopError extends CodedError<'BUSY'> {
  static override readonly marker = 'dsh-loop-sample'
  override name = 'LoopError'
}

/** A second copy of dsh-core's error root and of a package over it, as two installed copies would load them. */
async function secondCopy() {
  // the query string makes it a module of its own, as a second install of the package is
  const copy = '../src/coded-error.ts?copy=2'
  const { CodedError: OtherRoot } = await import(/* @vite-ignore */ copy) as typeof import('../src/coded-error.ts')
  class OtherStoreError extends OtherRoot<StoreCode, { id?: string }> {
    static override readonly marker = 'dsh-store-sample'
    override name = 'StoreError'
  }
  return { OtherRoot, OtherStoreError }
}

describe('CodedError.is', () => {
  it('recognises an error of a second copy of the package, which instanceof does not', async () => {
    const { OtherRoot, OtherStoreError } = await secondCopy()
    expect(OtherRoot).not.toBe(CodedError)
    const other = new OtherStoreError('BUSY', 'session "a" is open elsewhere')
    expect(other instanceof StoreError).toBe(false)
    expect(StoreError.is(other)).toBe(true)
    expect(StoreError.is(other, 'BUSY')).toBe(true)
    expect(CodedError.is(other, 'BUSY')).toBe(true)
    // and the other way round: the second copy knows ours
    expect(OtherStoreError.is(new StoreError('NOT_FOUND', 'no session "b"'))).toBe(true)
  })

  it('recognises a plain object carrying the marker (an error rebuilt by another realm or copy)', () => {
    const rebuilt = { [Symbol.for('dsh.coded-error')]: ['dsh-store-sample', 'dsh-core'], code: 'BUSY', message: 'busy' }
    expect(StoreError.is(rebuilt, 'BUSY')).toBe(true)
    expect(LoopError.is(rebuilt)).toBe(false)
  })

  it('tells the packages apart, and the code when one is asked for', () => {
    const busy = new LoopError('BUSY', 'a turn is running')
    expect(LoopError.is(busy, 'BUSY')).toBe(true)
    expect(StoreError.is(busy)).toBe(false)
    expect(StoreError.is(busy, 'BUSY')).toBe(false)
    expect(CodedError.is(busy)).toBe(true)
    expect(StoreError.is(new StoreError('NOT_FOUND', 'gone'), 'BUSY')).toBe(false)
  })

  it('does not take a foreign error with a code property, nor values that are not errors', () => {
    const foreign = Object.assign(new Error('resource busy'), { code: 'BUSY' })
    expect(CodedError.is(foreign)).toBe(false)
    expect(CodedError.is(foreign, 'BUSY')).toBe(false)
    expect(StoreError.is(foreign, 'BUSY')).toBe(false)
    for (const value of [undefined, null, 'BUSY', 42, { code: 'BUSY' }]) expect(CodedError.is(value)).toBe(false)
  })

  it('narrows to the class and the code asked for', () => {
    const caught: unknown = new StoreError('BUSY', 'busy', { details: { id: 'a' } })
    if (!StoreError.is(caught, 'BUSY')) throw new Error('expected a StoreError')
    expectTypeOf(caught).toExtend<StoreError>()
    expectTypeOf(caught.code).toEqualTypeOf<'BUSY'>()
    expectTypeOf(caught.details.id).toEqualTypeOf<string | undefined>()
    expect(caught.details).toEqual({ id: 'a' })
  })

  it('refuses to answer for a class that sets no marker of its own, rather than answer for its parent', () => {
    class Unmarked extends CodedError<'X'> {}
    expect(() => Unmarked.is(new LoopError('BUSY', 'x'))).toThrow('Unmarked sets no static marker; set it to its package\'s name')
  })

  it('keeps the marker out of what JSON and equality see, and the details frozen', () => {
    const error = new StoreError('BUSY', 'busy', { details: { id: 'a' } })
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'BUSY', details: { id: 'a' }, name: 'StoreError' })
    expect(Object.getOwnPropertySymbols(error).map((symbol) => Object.getOwnPropertyDescriptor(error, symbol)?.enumerable)).toEqual([false])
    expect(Object.isFrozen(error.details)).toBe(true)
    expect(new LoopError('BUSY', 'x').details).toEqual({})
  })
})
