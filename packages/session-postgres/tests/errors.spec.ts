import { CodedError } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { SessionPostgresError } from '../src/errors.ts'

describe('SessionPostgresError', () => {
  it('is a CodedError with its name, code and cause', () => {
    const cause = new Error('ECONNREFUSED')
    const error = new SessionPostgresError('CONNECT', 'cannot reach the database', { cause })
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.message, error.cause]).toEqual(['SessionPostgresError', 'CONNECT', 'cannot reach the database', cause])
  })
})
