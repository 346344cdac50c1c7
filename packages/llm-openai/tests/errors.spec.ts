import { adapterCause, loadWithLlm, sampleRequest, startLoopback, streamError } from 'dsh-llm/testing'
import { describe, expect, it } from 'vitest'
import OpenAIProvider, { OpenAIAdapterError } from '../src/index.ts'
import { sendStream, textReply, toolCallReply } from './emulator.ts'
import { setup } from './setup.ts'

/** The adapter's own error behind the runtime's `ADAPTER_ERROR`/`CANCELLED` wrapper. */
const cause = (error: Error) => adapterCause<OpenAIAdapterError>(error)

// The failures every HTTP adapter shares run in http-contract.spec.ts; these are the Chat Completions wire's own.

describe('API key', () => {
  it('says when the variable is set but empty', async () => {
    const server = await startLoopback((_, res) => sendStream(res, textReply('never')))
    process.env.DSH_TEST_EMPTY_OPENAI_KEY = ''
    const { ctx } = await loadWithLlm(OpenAIProvider, { baseURL: server.origin, apiKeyEnv: 'DSH_TEST_EMPTY_OPENAI_KEY', models: ['m'] })
    try {
      const error = await streamError(ctx, sampleRequest({ model: 'm' }))
      expect(error.message).toContain('environment variable DSH_TEST_EMPTY_OPENAI_KEY is empty')
      expect(server.requests).toHaveLength(0)
    } finally {
      delete process.env.DSH_TEST_EMPTY_OPENAI_KEY
      await server.close()
    }
  })
})

describe('HTTP failures', () => {
  it('reads a top-level message from servers that do not nest it under error (vLLM)', async () => {
    const h = await setup((_, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ object: 'error', message: 'maximum context length is 4096 tokens', type: 'BadRequestError' }))
    })
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('HTTP 400')
      expect(error.message).toContain('maximum context length is 4096 tokens')
    } finally {
      await h.teardown()
    }
  })

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

