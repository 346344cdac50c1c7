import { CodedError } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { BootError } from '../src/index.ts'
import { type BootFailure } from '../src/errors.ts'

describe('BootError', () => {
  it('is a CodedError with its name, code and the failures found', () => {
    const failures: BootFailure[] = [{ code: 'PLUGIN_FAILED', entry: 'tools', message: 'entry "tools" (x): failed to start: boom' }]
    const error = new BootError('PLUGIN_FAILED', 'app.yaml: 1 entry failed', failures)
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.message, error.failures]).toEqual(['BootError', 'PLUGIN_FAILED', 'app.yaml: 1 entry failed', failures])
    expect(new BootError('YAML_SYNTAX', 'bad').failures).toEqual([])
  })
})
