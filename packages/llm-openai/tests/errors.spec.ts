import { LlmError } from 'dsh-llm'
import { adapterCause, configRefusal, drainStream, exposedText, loadWithLlm, sampleRequest, startLoopback, streamError } from 'dsh-llm/testing'
import { describe, expect, it } from 'vitest'
import OpenAIProvider, { OpenAIAdapterError } from '../src/index.ts'
import { chunk, sendError, sendStream, textReply, toolCallReply } from './emulator.ts'
import { setup } from './setup.ts'

/** The adapter's own error behind the runtime's `ADAPTER_ERROR`/`CANCELLED` wrapper. */
const cause = (error: Error) => adapterCause<OpenAIAdapterError>(error)

describe('API key', () => {
  it('refuses to start when the variable is not set, naming it and the models', async () => {
    const message = await configRefusal(OpenAIProvider, { apiKeyEnv: 'DSH_TEST_SURELY_UNSET_KEY', models: ['deepseek-chat', 'other'] })
    expect(message).toBe('environment variable DSH_TEST_SURELY_UNSET_KEY is not set (needed by dsh-llm-openai for models deepseek-chat, other); export it, or disable this entry')
  })

  it('refuses to start when the variable is set but empty', async () => {
    process.env.DSH_TEST_EMPTY_KEY = ''
    try {
      const message = await configRefusal(OpenAIProvider, { apiKeyEnv: 'DSH_TEST_EMPTY_KEY', models: ['m'] })
      expect(message).toContain('environment variable DSH_TEST_EMPTY_KEY is empty (needed by dsh-llm-openai for model m)')
    } finally {
      delete process.env.DSH_TEST_EMPTY_KEY
    }
  })

  it('fails a request before sending anything when the variable is removed after the start', async () => {
    const server = await startLoopback((_, res) => sendStream(res, textReply('never')))
    const name = 'DSH_TEST_VANISHING_KEY'
    process.env[name] = 'sk-vanishing'
    const { ctx } = await loadWithLlm(OpenAIProvider, { baseURL: server.origin, apiKeyEnv: name, models: ['m'] })
    delete process.env[name]
    try {
      const error = await streamError(ctx, sampleRequest({ model: 'm' }))
      expect(error.message).toContain(`environment variable ${name} is not set`)
      expect(cause(error).code).toBe('MISSING_API_KEY')
      expect(server.requests).toHaveLength(0)
    } finally {
      await server.close()
    }
  })

  it('never shows the key, even when the provider echoes it back', async () => {
    const h = await setup((req, res) => sendError(res, 401, `Incorrect API key provided: ${req.headers.authorization?.slice(7)}`))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('HTTP 401')
      expect(error.message).toContain('Incorrect API key provided: [redacted]')
      expect(exposedText(error)).not.toContain(h.key.value)
    } finally {
      await h.teardown()
    }
  })
})

describe('HTTP failures', () => {
  it('reports HTTP 500 with the status and the provider message, without retrying', async () => {
    const h = await setup((_, res) => sendError(res, 500, 'the model is on fire'))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toMatch(/HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions for model "test-model": the model is on fire/)
      expect(cause(error)).toMatchObject({ code: 'HTTP_ERROR', status: 500 })
      expect(h.server.requests).toHaveLength(1)
    } finally {
      await h.teardown()
    }
  })

  it('reports 429 with the retry-after seconds', async () => {
    const h = await setup((_, res) => sendError(res, 429, 'slow down', { 'retry-after': '17' }))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('HTTP 429')
      expect(error.message).toContain('retry after 17 s')
      expect(cause(error)).toMatchObject({ code: 'HTTP_ERROR', status: 429, retryAfterSeconds: 17 })
      expect(h.server.requests).toHaveLength(1)
    } finally {
      await h.teardown()
    }
  })

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
  it('reports a connection reset mid-stream', async () => {
    const h = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`data: ${JSON.stringify(chunk({ content: 'partial ' }))}\n\n`)
      res.write(`data: ${JSON.stringify(chunk({ content: 'answer' }))}\n\n`, () => setTimeout(() => res.socket?.destroy(), 20))
    })
    try {
      const seen: string[] = []
      const error = await (async () => {
        for await (const event of h.ctx.llm.stream(sampleRequest())) if (event.type === 'text') seen.push(event.delta)
      })().then(() => undefined, (e: Error) => e)
      expect(seen.join('')).toBe('partial answer')
      expect(error?.message).toMatch(/connection to .* was lost mid-stream for model "test-model" after 2 chunks/)
      expect(cause(error!).code).toBe('CONNECTION_ERROR')
    } finally {
      await h.teardown()
    }
  })

  it('reports malformed server-sent events', async () => {
    const h = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`data: ${JSON.stringify(chunk({ content: 'ok' }))}\n\n`)
      res.end('data: {"choices":[{"delta":{"content":"x"}\n\n')
    })
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(cause(error).code).toBe('MALFORMED_STREAM')
      expect(error.message).toContain('malformed server-sent event')
      expect(error.message).toContain('after 1 chunks')
    } finally {
      await h.teardown()
    }
  })

  it('reports a stream that ends without a finish_reason as truncated', async () => {
    const h = await setup((_, res) => sendStream(res, [chunk({ content: 'half an ans' })]))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(cause(error).code).toBe('TRUNCATED_STREAM')
      expect(error.message).toContain('without a finish_reason')
    } finally {
      await h.teardown()
    }
  })

  it('rejects tool-call arguments that are not valid JSON', async () => {
    const h = await setup((_, res) => sendStream(res, toolCallReply([{ id: 'call_1', name: 'read', arguments: '{"input": "a' }])))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(cause(error).code).toBe('INVALID_TOOL_CALL')
      expect(error.message).toContain('tool call "read" (id call_1) has arguments that are not valid JSON')
    } finally {
      await h.teardown()
    }
  })

  it('rejects tool-call arguments that are JSON but not an object', async () => {
    const h = await setup((_, res) => sendStream(res, toolCallReply([{ id: 'call_1', name: 'read', arguments: '[1,2]' }])))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('tool call "read" (id call_1) has arguments that are not a JSON object: [1,2]')
    } finally {
      await h.teardown()
    }
  })

  it('passes a provider error event mid-stream on with its message', async () => {
    const h = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`data: ${JSON.stringify(chunk({ content: 'ok' }))}\n\n`)
      res.end(`data: ${JSON.stringify({ error: { message: 'upstream overloaded', type: 'server_error' } })}\n\n`)
    })
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('reported an error mid-stream for model "test-model": upstream overloaded')
    } finally {
      await h.teardown()
    }
  })
})

describe('cancellation and timeouts', () => {
  it('aborts mid-stream: the request is cancelled promptly and the connection closed', async () => {
    let closed!: () => void
    const connectionClosed = new Promise<void>((resolve) => { closed = resolve })
    const h = await setup((_, res) => {
      res.on('close', () => closed())
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(`data: ${JSON.stringify(chunk({ content: 'first' }))}\n\n`)
      // …and never finishes.
    })
    try {
      const controller = new AbortController()
      const started = Date.now()
      const error = await (async () => {
        for await (const event of h.ctx.llm.stream(sampleRequest({ signal: controller.signal }))) {
          if (event.type === 'text') controller.abort()
        }
      })().then(() => undefined, (e: Error) => e)
      expect((error as LlmError).code).toBe('CANCELLED')
      expect(Date.now() - started).toBeLessThan(2000)
      await connectionClosed
    } finally {
      await h.teardown()
    }
  })

  it('passes the abort signal to the SDK: the adapter itself ends when aborted while waiting for headers', async () => {
    const h = await setup(() => { /* never answers */ })
    try {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), 50)
      const adapter = h.ctx.llm.resolve('test-model')
      const started = Date.now()
      const error = await (async () => {
        for await (const _ of adapter.stream(sampleRequest({ signal: controller.signal }))) { /* drain */ }
      })().then(() => undefined, (e: Error) => e)
      expect(Date.now() - started).toBeLessThan(2000)
      expect(error).toBeInstanceOf(OpenAIAdapterError)
      expect((error as OpenAIAdapterError).code).toBe('CANCELLED')
    } finally {
      await h.teardown()
    }
  })

  it('times out after timeoutMs', async () => {
    const h = await setup(() => { /* never answers */ }, { timeoutMs: 100 })
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(cause(error).code).toBe('CONNECTION_ERROR')
      expect(error.message).toContain('timed out after 100 ms')
    } finally {
      await h.teardown()
    }
  })
})
