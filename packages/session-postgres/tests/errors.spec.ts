import { CodedError } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { PgSessionError } from '../src/errors.ts'

describe('PgSessionError', () => {
  it('is a CodedError with its name, code and cause', () => {
    const cause = new Error('ECONNREFUSED')
    const error = new PgSessionError('CONNECT', 'cannot reach the database', { cause })
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.message, error.cause]).toEqual(['PgSessionError', 'CONNECT', 'cannot reach the database', cause])
  })
})
