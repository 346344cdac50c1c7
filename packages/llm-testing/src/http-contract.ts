import type { ServerResponse } from 'node:http'
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { LlmError } from 'dsh-llm'
import { HttpAdapterError } from 'dsh-llm/http'
import type { HttpWire } from './http-wire.ts'
import { startLoopback, type LoopbackHandler } from './loopback.ts'
import { startLoopbackAdapter } from './loopback-adapter.ts'
import { configRefusal, loadWithLlm } from './plugin.ts'
import { adapterCause, drainStream, exposedText, joinText, sampleRequest, sampleTool, streamError } from './streams.ts'
import { httpConfigCases } from './http-config.ts'
import { profileCases } from './profile-cases.ts'
import { idleTimeoutCases } from './timeouts.ts'

const MODEL = 'test-model'

/**
 * The failure cases every HTTP adapter shares: key handling, HTTP errors with retry-after, resets,
 * malformed events, truncation, bad tool calls, provider error events, cancellation, header and idle
 * timeouts, key redaction and the shared config keys. Each adapter runs it once with its wire format and keeps only its own cases.
 */
export function httpAdapterContract(name: string, wire: HttpWire): void {
  /** A loopback server and the adapter pointed at it, torn down when the running test finishes. */
  const setup = async (handler: LoopbackHandler, config: object = {}) => {
    const h = await startLoopbackAdapter(wire.plugin, handler, wire.key(), (server, apiKeyEnv) => ({
      ...wire.config(server, apiKeyEnv, [MODEL]),
      ...config,
    }))
    onTestFinished(h.teardown)
    return h
  }
  const cause = (error: Error) => adapterCause<HttpAdapterError>(error)
  const streamHeaders = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' })

  describe(`HTTP adapter contract: ${name}`, () => {
    describe('config', () => {
      it('sends the configured extra headers', async () => {
        const h = await setup((_, res) => wire.reply(res, 'ok'), { headers: { 'x-team': 'dsh' } })
        await drainStream(h.ctx, sampleRequest())
        expect(h.server.requests[0]!.headers['x-team']).toBe('dsh')
      })

      it(`keeps the path of baseURL (${wire.basePath.baseURL} leads to ${wire.basePath.url})`, async () => {
        const h = await setup((_, res) => wire.reply(res, 'ok'))
        const h2 = await setup((_, res) => wire.reply(res, 'ok'), { baseURL: `${h.server.origin}${wire.basePath.baseURL}` })
        await drainStream(h2.ctx, sampleRequest())
        expect(h.server.requests[0]!.url).toBe(wire.basePath.url)
      })

      it('retries as often as maxRetries says', async () => {
        const failure = wire.httpError(500, 'busy', { 'retry-after-ms': '1' })
        const h = await setup((_, res) => failure.write(res), { maxRetries: 2 })
        const error = await streamError(h.ctx, sampleRequest())
        expect(error.message).toContain('HTTP 500')
        expect(h.server.requests).toHaveLength(3)
      })

      it('does not print an API key pasted into apiKeyEnv', async () => {
        const message = await configRefusal(wire.plugin, { apiKeyEnv: 'sk-live-abcdef0123456789', models: ['m'] })
        expect(message).toMatch(/apiKeyEnv/)
        expect(message).not.toContain('sk-live-abcdef0123456789')
      })
    })

    describe('tool declarations', () => {
      it('keeps the given tool order exactly (never re-sorted)', async () => {
        const h = await setup((_, res) => wire.reply(res, 'ok'))
        await fc.assert(fc.asyncProperty(
          fc.uniqueArray(fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,11}$/), { minLength: 1, maxLength: 12 }),
          async (names) => {
            const before = h.server.requests.length
            await drainStream(h.ctx, sampleRequest({ tools: names.map((name) => sampleTool(name)) }))
            expect(wire.toolNames(JSON.parse(h.server.requests[before]!.body))).toEqual(names)
          },
        ), { numRuns: 25 })
      })
    })

    describe('tool-call streaming', () => {
      const calls = (events: Awaited<ReturnType<typeof drainStream>>) => events.flatMap((event) => event.type === 'tool-call' ? [event.call] : [])

      it('assembles argument fragments into complete, parsed calls', async () => {
        const h = await setup((_, res) => wire.toolCalls(res, [
          { id: 'call_a', name: 'read', args: '{"input":"a long file name.txt","n":[1,2,3]}' },
          { id: 'call_b', name: 'write', args: '{"input":"x"}' },
        ]))
        const events = await drainStream(h.ctx, sampleRequest())
        expect(joinText(events)).toBe(wire.toolCallText)
        expect(calls(events)).toEqual([
          { id: 'call_a', name: 'read', arguments: { input: 'a long file name.txt', n: [1, 2, 3] } },
          { id: 'call_b', name: 'write', arguments: { input: 'x' } },
        ])
        expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' })
      })

      it('treats empty arguments as an empty object', async () => {
        const h = await setup((_, res) => wire.toolCalls(res, [{ id: 'call_a', name: 'read', args: '' }]))
        expect(calls(await drainStream(h.ctx, sampleRequest()))).toEqual([{ id: 'call_a', name: 'read', arguments: {} }])
      })
    })

    describe('API key', () => {
      it('refuses to start when the variable is not set, naming it and the models', async () => {
        const message = await configRefusal(wire.plugin, { apiKeyEnv: 'DSH_TEST_SURELY_UNSET_KEY', models: ['deepseek-chat', 'other'] })
        expect(message).toBe(`environment variable DSH_TEST_SURELY_UNSET_KEY is not set (needed by ${wire.packageName} for models deepseek-chat, other); export it, or disable this entry`)
      })

      it('refuses to start when the variable is set but empty', async () => {
        const variable = `DSH_TEST_EMPTY_KEY_${wire.unit.toUpperCase()}`
        process.env[variable] = ''
        onTestFinished(() => { delete process.env[variable] })
        const message = await configRefusal(wire.plugin, { apiKeyEnv: variable, models: ['m'] })
        expect(message).toContain(`environment variable ${variable} is empty (needed by ${wire.packageName} for model m)`)
      })

      it('fails a request before sending anything when the variable is removed after the start', async () => {
        const server = await startLoopback((_, res) => wire.reply(res, 'never'))
        const variable = `DSH_TEST_VANISHING_KEY_${wire.unit.toUpperCase()}`
        process.env[variable] = 'sk-vanishing'
        const { ctx } = await loadWithLlm(wire.plugin, { ...wire.config(server, variable, ['m']), baseURL: server.origin })
        delete process.env[variable]
        onTestFinished(server.close)
        const error = await streamError(ctx, sampleRequest({ model: 'm' }))
        expect(error.message).toContain(`environment variable ${variable} is not set (needed by ${wire.packageName} for model m)`)
        expect(cause(error).code).toBe('MISSING_API_KEY')
        expect(server.requests).toHaveLength(0)
      })

      it('never shows the key, even when the provider echoes it back', async () => {
        let shown = ''
        const h = await setup((req, res) => {
          const failure = wire.httpError(401, `invalid key ${req.headers.authorization?.slice(7)}`)
          shown = failure.shown.replace(/invalid key .*/, 'invalid key [redacted]')
          failure.write(res)
        })
        const error = await streamError(h.ctx, sampleRequest())
        expect(error.message).toContain('HTTP 401')
        expect(error.message).toContain(shown)
        expect(exposedText(error)).not.toContain(h.key.value)
      })
    })

    describe('HTTP failures', () => {
      it('reports HTTP 500 with the status and the provider message, without retrying', async () => {
        const failure = wire.httpError(500, 'the model is on fire')
        const h = await setup((_, res) => failure.write(res))
        const error = await streamError(h.ctx, sampleRequest())
        expect(error.message).toMatch(new RegExp(`HTTP 500 from http://127\\.0\\.0\\.1:\\d+${wire.path} for model "${MODEL}": `))
        expect(error.message).toContain(`: ${failure.shown}`)
        expect(cause(error)).toMatchObject({ code: 'HTTP_ERROR', status: 500 })
        expect(h.server.requests).toHaveLength(1)
      })

      it('reports 429 with the retry-after seconds', async () => {
        const failure = wire.httpError(429, 'slow down', { 'retry-after': '17' })
        const h = await setup((_, res) => failure.write(res))
        const error = await streamError(h.ctx, sampleRequest())
        expect(error.message).toContain('HTTP 429')
        expect(error.message).toContain('retry after 17 s')
        expect(cause(error)).toMatchObject({ code: 'HTTP_ERROR', status: 429, retryAfterSeconds: 17 })
        expect(h.server.requests).toHaveLength(1)
      })
    })

    describe('error bodies of other shapes', () => {
      for (const failure of wire.otherErrorBodies) {
        it(failure.title, async () => {
          const h = await setup((_, res) => {
            res.writeHead(failure.status, { 'content-type': failure.contentType })
            res.end(failure.body)
          })
          const error = await streamError(h.ctx, sampleRequest())
          expect(error.message).toContain(`HTTP ${failure.status}`)
          expect(error.message).toContain(failure.shown)
        })
      }
    })

    describe('broken streams', () => {
      it('reports a connection reset mid-stream', async () => {
        const opening = wire.textFrames(['partial '])
        const rest = wire.textFrames(['partial ', 'answer'])
        const h = await setup((_, res) => {
          streamHeaders(res)
          res.write(opening.frames)
          res.write(rest.frames.slice(opening.frames.length), () => setTimeout(() => res.socket?.destroy(), 20))
        })
        const seen: string[] = []
        const error = await (async () => {
          for await (const event of h.ctx.llm.stream(sampleRequest())) if (event.type === 'text') seen.push(event.delta)
        })().then(() => undefined, (e: Error) => e)
        expect(seen.join('')).toBe('partial answer')
        expect(error?.message).toMatch(new RegExp(`connection to .* was lost mid-stream for model "${MODEL}" after ${rest.count} ${wire.unit}`))
        expect(cause(error!).code).toBe('CONNECTION_ERROR')
      })

      it('reports malformed server-sent events', async () => {
        const h = await setup((_, res) => {
          streamHeaders(res)
          res.end(wire.malformedBody)
        })
        const error = await streamError(h.ctx, sampleRequest())
        expect(cause(error).code).toBe('MALFORMED_STREAM')
        expect(error.message).toContain('malformed server-sent event')
        expect(error.message).toContain(`after 1 ${wire.unit}`)
      })

      it.each([
        ['reports a stream that never says it finished as truncated', 'truncated', 'TRUNCATED_STREAM'],
        ['rejects tool-call arguments that are not valid JSON', 'invalidToolCall', 'INVALID_TOOL_CALL'],
        ['passes a provider error event mid-stream on with its message', 'errorEvent', undefined],
      ] as const)('%s', async (_title, key, code) => {
        const failure = wire[key]
        const h = await setup((_, res) => failure.write(res))
        const error = await streamError(h.ctx, sampleRequest())
        if (code) expect(cause(error).code).toBe(code)
        expect(error.message).toContain(failure.shown)
      })
    })

    describe('cancellation and timeouts', () => {
      it('aborts mid-stream: the request is cancelled promptly and the connection closed', async () => {
        let closed!: () => void
        const connectionClosed = new Promise<void>((resolve) => { closed = resolve })
        const h = await setup((_, res) => {
          res.on('close', () => closed())
          streamHeaders(res)
          res.write(wire.textFrames(['first']).frames)
          // …and never finishes.
        })
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
      })

      it('passes the abort signal to the SDK: the adapter itself ends with its own CANCELLED', async () => {
        const h = await setup((_, res) => {
          if (wire.abortWhile === 'headers') return // never answers
          streamHeaders(res)
          res.write(wire.textFrames(['first']).frames)
        })
        const controller = new AbortController()
        if (wire.abortWhile === 'headers') setTimeout(() => controller.abort(), 50)
        const adapter = h.ctx.llm.resolve(MODEL)
        const started = Date.now()
        const error = await (async () => {
          for await (const event of adapter.stream(sampleRequest({ signal: controller.signal }))) {
            if (event.type === 'text') setTimeout(() => controller.abort(), 20)
          }
        })().then(() => undefined, (e: Error) => e)
        expect(Date.now() - started).toBeLessThan(2000)
        expect(error).toBeInstanceOf(HttpAdapterError)
        expect((error as HttpAdapterError).code).toBe('CANCELLED')
      })

      it('times out after timeoutMs', async () => {
        const h = await setup(() => { /* never answers */ }, { timeoutMs: 100 })
        const error = await streamError(h.ctx, sampleRequest())
        expect(cause(error).code).toBe('CONNECTION_ERROR')
        expect(error.message).toContain('timed out after 100 ms')
      })
    })

    idleTimeoutCases(wire, setup)
    httpConfigCases(wire)
    profileCases(wire)
  })
}
