import { LlmError } from 'dsh-llm'
import { adapterCause, configRefusal, drainStream, exposedText, loadWithLlm, sampleRequest, startLoopback, streamError } from 'dsh-llm/testing'
import { describe, expect, it } from 'vitest'
import AnthropicProvider, { AnthropicAdapterError } from '../src/index.ts'
import { frame, messageStart, reply, sendError, sendEvents } from './emulator.ts'
import { setup } from './setup.ts'

/** The adapter's own error behind the runtime's `ADAPTER_ERROR`/`CANCELLED` wrapper. */
const cause = (error: Error) => adapterCause<AnthropicAdapterError>(error)

const textStart = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }
const textDelta = (text: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })

describe('API key', () => {
  it('refuses to start when the variable is not set, naming it and the models', async () => {
    const message = await configRefusal(AnthropicProvider, { apiKeyEnv: 'DSH_TEST_SURELY_UNSET_KEY', models: ['deepseek-chat', 'other'] })
    expect(message).toBe('environment variable DSH_TEST_SURELY_UNSET_KEY is not set (needed by dsh-llm-anthropic for models deepseek-chat, other); export it, or disable this entry')
  })

  it('refuses to start when the variable is set but empty', async () => {
    process.env.DSH_TEST_EMPTY_KEY = ''
    try {
      const message = await configRefusal(AnthropicProvider, { apiKeyEnv: 'DSH_TEST_EMPTY_KEY', models: ['m'] })
      expect(message).toContain('environment variable DSH_TEST_EMPTY_KEY is empty (needed by dsh-llm-anthropic for model m)')
    } finally {
      delete process.env.DSH_TEST_EMPTY_KEY
    }
  })

  it('fails a request before sending anything when the variable is removed after the start', async () => {
    const server = await startLoopback((_, res) => sendEvents(res, reply({ text: 'never' })))
    const name = 'DSH_TEST_VANISHING_KEY'
    process.env[name] = 'sk-vanishing'
    const { ctx } = await loadWithLlm(AnthropicProvider, { baseURL: server.origin, apiKeyEnv: name, models: ['m'] })
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
    const h = await setup((req, res) => sendError(res, 401, 'authentication_error', `invalid x-api-key ${req.headers.authorization?.slice(7)}`))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('HTTP 401')
      expect(error.message).toContain('authentication_error: invalid x-api-key [redacted]')
      expect(exposedText(error)).not.toContain(h.key.value)
    } finally {
      await h.teardown()
    }
  })
})

describe('HTTP failures', () => {
  it('reports HTTP 500 with the status and the provider message, without retrying', async () => {
    const h = await setup((_, res) => sendError(res, 500, 'api_error', 'the model is on fire'))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toMatch(/HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/v1\/messages for model "test-model": api_error: the model is on fire/)
      expect(cause(error)).toMatchObject({ code: 'HTTP_ERROR', status: 500 })
      expect(h.server.requests).toHaveLength(1)
    } finally {
      await h.teardown()
    }
  })

  it('reports 429 with the retry-after seconds', async () => {
    const h = await setup((_, res) => sendError(res, 429, 'rate_limit_error', 'slow down', { 'retry-after': '23' }))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('HTTP 429')
      expect(error.message).toContain('retry after 23 s')
      expect(cause(error)).toMatchObject({ code: 'HTTP_ERROR', status: 429, retryAfterSeconds: 23 })
      expect(h.server.requests).toHaveLength(1)
    } finally {
      await h.teardown()
    }
  })

  it('shows a body that is not JSON', async () => {
    const h = await setup((_, res) => {
      res.writeHead(502, { 'content-type': 'text/plain' })
      res.end('Bad Gateway from the proxy')
    })
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('HTTP 502')
      expect(error.message).toContain('Bad Gateway from the proxy')
    } finally {
      await h.teardown()
    }
  })
})

describe('broken streams', () => {
  it('reports a connection reset mid-stream', async () => {
    const h = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(frame(messageStart()) + frame(textStart) + frame(textDelta('partial ')))
      res.write(frame(textDelta('answer')), () => setTimeout(() => res.socket?.destroy(), 20))
    })
    try {
      const seen: string[] = []
      const error = await (async () => {
        for await (const event of h.ctx.llm.stream(sampleRequest())) if (event.type === 'text') seen.push(event.delta)
      })().then(() => undefined, (e: Error) => e)
      expect(seen.join('')).toBe('partial answer')
      expect(error?.message).toMatch(/connection to .* was lost mid-stream for model "test-model" after 4 events/)
      expect(cause(error!).code).toBe('CONNECTION_ERROR')
    } finally {
      await h.teardown()
    }
  })

  it('reports malformed server-sent events', async () => {
    const h = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(frame(messageStart()))
      res.end('event: content_block_delta\ndata: {"type":"content_block_delta","index":0,\n\n')
    })
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(cause(error).code).toBe('MALFORMED_STREAM')
      expect(error.message).toContain('malformed server-sent event')
      expect(error.message).toContain('after 1 events')
    } finally {
      await h.teardown()
    }
  })

  it('reports a stream that ends without message_stop as truncated', async () => {
    const h = await setup((_, res) => sendEvents(res, [messageStart(), textStart, textDelta('half an ans')]))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(cause(error).code).toBe('TRUNCATED_STREAM')
      expect(error.message).toContain('without message_stop')
    } finally {
      await h.teardown()
    }
  })

  it('rejects tool input that is not valid JSON', async () => {
    const h = await setup((_, res) => sendEvents(res, reply({ calls: [{ id: 'toolu_1', name: 'read', input: '{"input": "a' }] })))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(cause(error).code).toBe('INVALID_TOOL_CALL')
      expect(error.message).toContain('tool call "read" (id toolu_1) has input that is not valid JSON')
    } finally {
      await h.teardown()
    }
  })

  it('passes an error event mid-stream on with its type and message', async () => {
    const h = await setup((_, res) => sendEvents(res, [
      messageStart(), textStart, textDelta('ok'),
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
    ]))
    try {
      const error = await streamError(h.ctx, sampleRequest())
      expect(error.message).toContain('reported an error mid-stream for model "test-model": overloaded_error: Overloaded')
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
      res.write(frame(messageStart()) + frame(textStart) + frame(textDelta('first')))
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

  it('passes the abort signal to the SDK: the adapter itself ends when aborted mid-stream', async () => {
    const h = await setup((_, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(frame(messageStart()) + frame(textStart) + frame(textDelta('first')))
    })
    try {
      const controller = new AbortController()
      const adapter = h.ctx.llm.resolve('test-model')
      const started = Date.now()
      const error = await (async () => {
        for await (const event of adapter.stream(sampleRequest({ signal: controller.signal }))) {
          if (event.type === 'text') setTimeout(() => controller.abort(), 20)
        }
      })().then(() => undefined, (e: Error) => e)
      expect(Date.now() - started).toBeLessThan(2000)
      expect(error).toBeInstanceOf(AnthropicAdapterError)
      expect((error as AnthropicAdapterError).code).toBe('CANCELLED')
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
