import type { HttpAdapterError } from 'dsh-llm/http'
import { adapterCause, sampleRequest, startLoopback, streamError } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import { sendStream, textReply, toolCallReply } from './wire-frames.ts'
import { setup } from './setup.ts'

/** The adapter's own error behind the runtime's `ADAPTER_ERROR`/`CANCELLED` wrapper. */
const cause = (error: Error) => adapterCause<HttpAdapterError>(error)

// The failures every HTTP adapter shares run in http-contract.spec.ts; these are the Chat Completions wire's own.

describe('HTTP failures', () => {
  it('reports an unreachable server as a connection error', async () => {
    const server = await startLoopback(() => {})
    const origin = server.origin
    await server.close()
    const h = await setup((_, res) => sendStream(res, textReply('never')), { baseURL: origin })
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(cause(error).code).toBe('CONNECTION_ERROR')
      expect(error.message).toContain(`could not reach ${origin}/chat/completions`)
    } finally {
      await h.teardown()
    }
  })
})

describe('broken streams', () => {
  it('rejects tool-call arguments that are JSON but not an object', async () => {
    const h = await setup((_, res) => sendStream(res, toolCallReply([{ id: 'call_1', name: 'read', arguments: '[1,2]' }])))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('tool call "read" (id call_1) has arguments that are not a JSON object: [1,2]')
    } finally {
      await h.teardown()
    }
  })
})

