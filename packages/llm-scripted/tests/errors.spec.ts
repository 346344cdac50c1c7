import { CodedError } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { ScriptedError } from '../src/error.ts'

describe('ScriptedError', () => {
  it('is a CodedError with its name and code', () => {
    const error = new ScriptedError('SCRIPT_EXHAUSTED', 'the script has no step 3')
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.message]).toEqual(['ScriptedError', 'SCRIPT_EXHAUSTED', 'the script has no step 3'])
  })
})
