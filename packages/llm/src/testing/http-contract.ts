import type { ServerResponse } from 'node:http'
import type { Plugin } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { LlmError } from '../error.ts'
import type { LlmAdapter } from '../types.ts'
import { HttpAdapterError } from '../http/error.ts'
import type { FakeApiKey } from './fake-key.ts'
import { startLoopback, type Loopback, type LoopbackHandler } from './loopback.ts'
import { startLoopbackAdapter } from './loopback-adapter.ts'
import { configRefusal, loadWithLlm } from './plugin.ts'
import { adapterCause, drainStream, exposedText, joinText, sampleRequest, sampleTool, streamError } from './streams.ts'
import { httpConfigCases } from './http-config.ts'
import { idleTimeoutCases } from './timeouts.ts'

/** A scripted provider failure: the words the provider says and how the adapter's message shows them. */
export interface WireFailure {
  write(res: ServerResponse): void
  /** Text the error message must contain. */
  shown: string
}

/** What the HTTP contract needs to know about one adapter's wire format. */
export interface HttpWire {
  /** The adapter's package name, as its messages name it (`dsh-llm-openai`). */
  packageName: string
  plugin: Plugin
  /** The adapter built without Cordis (`createOpenAIAdapter`). */
  create(config: any): LlmAdapter
  /** The config with defaults filled in, without Cordis (the package's `resolveConfig`). */
  resolveConfig(config: any): object
  /** Context window of a model entry that sets none. */
  contextWindow: number
  /** A fresh fake key per check. */
  key(): FakeApiKey
  /** The plugin's config serving `models` from the server, with the key in the variable `apiKeyEnv`. */
  config(server: Loopback, apiKeyEnv: string, models: string[]): object
  /** The request path the adapter posts to (`/v1/chat/completions`). */
  path: string
  /** What the adapter counts a stream in: `chunks` or `events`. */
  unit: 'chunks' | 'events'
  /** An HTTP error answer of `status` carrying `message`; `shown` is how the adapter's message quotes it. */
  httpError(status: number, message: string, headers?: Record<string, string>): WireFailure
  /** Stream frames (SSE text) that open a reply and carry `texts` as text deltas, with how many units they are. */
  textFrames(texts: string[]): { frames: string; count: number }
  /** Stream frames that end a text reply `textFrames` opened (stop reason, end of message). */
  endFrames: string
  /** A stream body whose one well-formed unit is followed by a malformed event. */
  malformedBody: string
  /** A complete-looking stream that never says it finished. */
  truncated: WireFailure
  /** A reply whose tool call carries arguments that are not valid JSON. */
  invalidToolCall: WireFailure
  /** A stream that carries a provider error event after some text. */
  errorEvent: WireFailure
  /** A well-formed reply answering `text`. */
  reply(res: ServerResponse, text: string): void
  /** A reply that asks for `calls` (`args` as the raw JSON text streamed), after the text `toolCallText`. */
  toolCalls(res: ServerResponse, calls: { id: string; name: string; args: string }[]): void
  toolCallText: string
  /** When the adapter-level abort check aborts: while waiting for response headers, or mid-stream. */
  abortWhile: 'headers' | 'streaming'
  /** The tool names of a request body, in the order sent. */
  toolNames(body: any): string[]
  /** A baseURL path (relative to the server's origin) and the request path it must lead to. */
  basePath: { baseURL: string; url: string }
  /** Error answers in shapes of the wire's own (other servers, proxies) whose words must still be shown. */
  otherErrorBodies: { title: string; status: number; contentType: string; body: string; shown: string }[]
}

const MODEL = 'test-model'

/**
 * The failure cases every HTTP adapter shares: key handling, HTTP errors with retry-after, resets,
 * malformed events, truncation, bad tool calls, provider error events, cancellation, header and idle
 * timeouts, key redaction and the shared config keys. Each adapter runs it once with its wire format and keeps only its own cases.
 */
export function httpAdapterContract(name: string, wire: HttpWire): void {
  const setup = (handler: LoopbackHandler, config: object = {}) => startLoopbackAdapter(wire.plugin, handler, wire.key(), (server, apiKeyEnv) => ({
    ...wire.config(server, apiKeyEnv, [MODEL]),
    ...config,
  }))
  const cause = (error: Error) => adapterCause<HttpAdapterError>(error)
  const streamHeaders = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' })

  describe(`HTTP adapter contract: ${name}`, () => {
    describe('config', () => {
      it('sends the configured extra headers', async () => {
        const h = await setup((_, res) => wire.reply(res, 'ok'), { headers: { 'x-team': 'dsh' } })
        try {
          await drainStream(h.ctx, sampleRequest())
          expect(h.server.requests[0]!.headers['x-team']).toBe('dsh')
        } finally {
          await h.teardown()
        }
      })

      it(`keeps the path of baseURL (${wire.basePath.baseURL} leads to ${wire.basePath.url})`, async () => {
        const h = await setup((_, res) => wire.reply(res, 'ok'))
        const h2 = await setup((_, res) => wire.reply(res, 'ok'), { baseURL: `${h.server.origin}${wire.basePath.baseURL}` })
        try {
          await drainStream(h2.ctx, sampleRequest())
          expect(h.server.requests[0]!.url).toBe(wire.basePath.url)
        } finally {
          await h.teardown()
          await h2.teardown()
        }
      })

      it('retries as often as maxRetries says', async () => {
        const failure = wire.httpError(500, 'busy', { 'retry-after-ms': '1' })
        const h = await setup((_, res) => failure.write(res), { maxRetries: 2 })
        try {
          const error = await streamError(h.ctx, sampleRequest())
          expect(error.message).toContain('HTTP 500')
          expect(h.server.requests).toHaveLength(3)
        } finally {
          await h.teardown()
        }
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
        try {
          await fc.assert(fc.asyncProperty(
            fc.uniqueArray(fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,11}$/), { minLength: 1, maxLength: 12 }),
            async (names) => {
              const before = h.server.requests.length
              await drainStream(h.ctx, sampleRequest({ tools: names.map((name) => sampleTool(name)) }))
              expect(wire.toolNames(JSON.parse(h.server.requests[before]!.body))).toEqual(names)
            },
          ), { numRuns: 25 })
        } finally {
          await h.teardown()
        }
      })
    })

    describe('tool-call streaming', () => {
      const calls = (events: Awaited<ReturnType<typeof drainStream>>) => events.flatMap((event) => event.type === 'tool-call' ? [event.call] : [])

      it('assembles argument fragments into complete, parsed calls', async () => {
        const h = await setup((_, res) => wire.toolCalls(res, [
          { id: 'call_a', name: 'read', args: '{"input":"a long file name.txt","n":[1,2,3]}' },
          { id: 'call_b', name: 'write', args: '{"input":"x"}' },
        ]))
        try {
          const events = await drainStream(h.ctx, sampleRequest())
          expect(joinText(events)).toBe(wire.toolCallText)
          expect(calls(events)).toEqual([
            { id: 'call_a', name: 'read', arguments: { input: 'a long file name.txt', n: [1, 2, 3] } },
            { id: 'call_b', name: 'write', arguments: { input: 'x' } },
          ])
          expect(events.at(-1)).toEqual({ type: 'done', stopReason: 'tool_use' })
        } finally {
          await h.teardown()
        }
      })

      it('treats empty arguments as an empty object', async () => {
        const h = await setup((_, res) => wire.toolCalls(res, [{ id: 'call_a', name: 'read', args: '' }]))
        try {
          expect(calls(await drainStream(h.ctx, sampleRequest()))).toEqual([{ id: 'call_a', name: 'read', arguments: {} }])
        } finally {
          await h.teardown()
        }
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
        try {
          const message = await configRefusal(wire.plugin, { apiKeyEnv: variable, models: ['m'] })
          expect(message).toContain(`environment variable ${variable} is empty (needed by ${wire.packageName} for model m)`)
        } finally {
          delete process.env[variable]
        }
      })

      it('fails a request before sending anything when the variable is removed after the start', async () => {
        const server = await startLoopback((_, res) => wire.reply(res, 'never'))
        const variable = `DSH_TEST_VANISHING_KEY_${wire.unit.toUpperCase()}`
        process.env[variable] = 'sk-vanishing'
        const { ctx } = await loadWithLlm(wire.plugin, { ...wire.config(server, variable, ['m']), baseURL: server.origin })
        delete process.env[variable]
        try {
          const error = await streamError(ctx, sampleRequest({ model: 'm' }))
          expect(error.message).toContain(`environment variable ${variable} is not set (needed by ${wire.packageName} for model m)`)
          expect(cause(error).code).toBe('MISSING_API_KEY')
          expect(server.requests).toHaveLength(0)
        } finally {
          await server.close()
        }
      })

      it('never shows the key, even when the provider echoes it back', async () => {
        let shown = ''
        const h = await setup((req, res) => {
          const failure = wire.httpError(401, `invalid key ${req.headers.authorization?.slice(7)}`)
          shown = failure.shown.replace(/invalid key .*/, 'invalid key [redacted]')
          failure.write(res)
        })
        try {
          const error = await streamError(h.ctx, sampleRequest())
          expect(error.message).toContain('HTTP 401')
          expect(error.message).toContain(shown)
          expect(exposedText(error)).not.toContain(h.key.value)
        } finally {
          await h.teardown()
        }
      })
    })

    describe('HTTP failures', () => {
      it('reports HTTP 500 with the status and the provider message, without retrying', async () => {
        const failure = wire.httpError(500, 'the model is on fire')
        const h = await setup((_, res) => failure.write(res))
        try {
          const error = await streamError(h.ctx, sampleRequest())
          expect(error.message).toMatch(new RegExp(`HTTP 500 from http://127\\.0\\.0\\.1:\\d+${wire.path} for model "${MODEL}": `))
          expect(error.message).toContain(`: ${failure.shown}`)
          expect(cause(error)).toMatchObject({ code: 'HTTP_ERROR', status: 500 })
          expect(h.server.requests).toHaveLength(1)
        } finally {
          await h.teardown()
        }
      })

      it('reports 429 with the retry-after seconds', async () => {
        const failure = wire.httpError(429, 'slow down', { 'retry-after': '17' })
        const h = await setup((_, res) => failure.write(res))
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
    })

    describe('error bodies of other shapes', () => {
      for (const failure of wire.otherErrorBodies) {
        it(failure.title, async () => {
          const h = await setup((_, res) => {
            res.writeHead(failure.status, { 'content-type': failure.contentType })
            res.end(failure.body)
          })
          try {
            const error = await streamError(h.ctx, sampleRequest())
            expect(error.message).toContain(`HTTP ${failure.status}`)
            expect(error.message).toContain(failure.shown)
          } finally {
            await h.teardown()
          }
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
        try {
          const seen: string[] = []
          const error = await (async () => {
            for await (const event of h.ctx.llm.stream(sampleRequest())) if (event.type === 'text') seen.push(event.delta)
          })().then(() => undefined, (e: Error) => e)
          expect(seen.join('')).toBe('partial answer')
          expect(error?.message).toMatch(new RegExp(`connection to .* was lost mid-stream for model "${MODEL}" after ${rest.count} ${wire.unit}`))
          expect(cause(error!).code).toBe('CONNECTION_ERROR')
        } finally {
          await h.teardown()
        }
      })

      it('reports malformed server-sent events', async () => {
        const h = await setup((_, res) => {
          streamHeaders(res)
          res.end(wire.malformedBody)
        })
        try {
          const error = await streamError(h.ctx, sampleRequest())
          expect(cause(error).code).toBe('MALFORMED_STREAM')
          expect(error.message).toContain('malformed server-sent event')
          expect(error.message).toContain(`after 1 ${wire.unit}`)
        } finally {
          await h.teardown()
        }
      })

      it.each([
        ['reports a stream that never says it finished as truncated', 'truncated', 'TRUNCATED_STREAM'],
        ['rejects tool-call arguments that are not valid JSON', 'invalidToolCall', 'INVALID_TOOL_CALL'],
        ['passes a provider error event mid-stream on with its message', 'errorEvent', undefined],
      ] as const)('%s', async (_title, key, code) => {
        const failure = wire[key]
        const h = await setup((_, res) => failure.write(res))
        try {
          const error = await streamError(h.ctx, sampleRequest())
          if (code) expect(cause(error).code).toBe(code)
          expect(error.message).toContain(failure.shown)
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
          streamHeaders(res)
          res.write(wire.textFrames(['first']).frames)
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

      it('passes the abort signal to the SDK: the adapter itself ends with its own CANCELLED', async () => {
        const h = await setup((_, res) => {
          if (wire.abortWhile === 'headers') return // never answers
          streamHeaders(res)
          res.write(wire.textFrames(['first']).frames)
        })
        try {
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

    idleTimeoutCases(wire, setup)
    httpConfigCases(wire)
  })
}
