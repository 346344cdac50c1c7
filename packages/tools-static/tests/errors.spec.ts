import { CodedError } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { ToolsStaticError } from '../src/errors.ts'

describe('ToolsStaticError', () => {
  it('is a CodedError with its name and code', () => {
    const error = new ToolsStaticError('DUPLICATE_TOOL', 'tool "a" is declared twice')
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.message]).toEqual(['ToolsStaticError', 'DUPLICATE_TOOL', 'tool "a" is declared twice'])
  })
})
