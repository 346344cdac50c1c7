import { CodedError } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { AppBootError } from '../src/index.ts'
import { type BootFailure } from '../src/errors.ts'

describe('AppBootError', () => {
  it('is a CodedError with its name, code and the failures found', () => {
    const failures: BootFailure[] = [{ code: 'PLUGIN_FAILED', entry: 'tools', message: 'entry "tools" (x): failed to start: boom' }]
    const error = new AppBootError('PLUGIN_FAILED', 'app.yaml: 1 entry failed', failures)
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.message, error.failures]).toEqual(['AppBootError', 'PLUGIN_FAILED', 'app.yaml: 1 entry failed', failures])
    expect(new AppBootError('YAML_SYNTAX', 'bad').failures).toEqual([])
  })
})
