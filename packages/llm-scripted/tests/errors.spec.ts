import { CodedError } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { LlmScriptedError } from '../src/error.ts'

describe('LlmScriptedError', () => {
  it('is a CodedError with its name and code', () => {
    const error = new LlmScriptedError('SCRIPT_EXHAUSTED', 'the script has no step 3')
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.message]).toEqual(['LlmScriptedError', 'SCRIPT_EXHAUSTED', 'the script has no step 3'])
  })
})
