import { CodedError } from 'dsh-core'
import { LlmError } from 'dsh-llm'
import { HttpAdapterError } from 'dsh-llm/http'
import { describe, expect, it } from 'vitest'
import { setup } from './setup.ts'

describe('error classes', () => {
  it('LlmError is a CodedError with its name, code, provider and model', async () => {
    const ctx = await setup()
    const error = (() => {
      try {
        ctx.llm.resolve('none')
      } catch (caught) {
        return caught
      }
    })() as LlmError
    expect(error).toBeInstanceOf(LlmError)
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.model, error.provider]).toEqual(['LlmError', 'UNKNOWN_MODEL', 'none', undefined])
  })

  it('HttpAdapterError is a CodedError with its name, code, status, retry delay and cause', () => {
    const cause = new Error('socket')
    const error = new HttpAdapterError('HTTP_ERROR', 'provider said 429', { status: 429, retryAfterSeconds: 3, cause })
    expect(error).toBeInstanceOf(CodedError)
    expect([error.name, error.code, error.message, error.status, error.retryAfterSeconds, error.cause])
      .toEqual(['HttpAdapterError', 'HTTP_ERROR', 'provider said 429', 429, 3, cause])
  })
})
