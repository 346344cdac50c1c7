import { CodedError } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { AcpDemoError } from '../src/errors.ts'

describe('AcpDemoError', () => {
  it('is a CodedError with its name, code and wire data', () => {
    const error = new AcpDemoError('UNKNOWN_SESSION', 'no session "s"', { sessionId: 's' })
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.message, error.data]).toEqual(['AcpDemoError', 'UNKNOWN_SESSION', 'no session "s"', { sessionId: 's' }])
    expect(new AcpDemoError('BUSY', 'busy').data).toEqual({})
  })
})
