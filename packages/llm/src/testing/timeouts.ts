import type { ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import { LlmError } from '../error.ts'
import type { GenerateOptions } from '../types.ts'
import { startLoopbackAdapter } from './loopback-adapter.ts'
import type { LoopbackHarnessOptions } from './loopback-adapter.ts'
import { joinText } from './streams.ts'

/** What the timeout checks need beside a loopback harness: the wire format's pieces of a text reply. */
export interface TimeoutHarnessOptions extends Pick<LoopbackHarnessOptions, 'plugin' | 'key' | 'config'> {
  /** Writes the response headers and the stream's opening event(s), leaving the response open. */
  open(res: ServerResponse): void
  /** Writes one event carrying `text` as a text delta. */
  text(res: ServerResponse, text: string): void
  /** Writes the events that end a text reply, and ends the response. */
  close(res: ServerResponse): void
}

const MODEL = 'timeout-model'
const IDLE_MS = 600

/**
 * Checks every HTTP adapter's idle timeout against a real loopback server: a stream that goes silent
 * after it started fails with `STREAM_STALLED` and releases the connection, and a slow stream whose
 * events come closer together than the timeout is served whole.
 */
export function httpTimeoutContract(name: string, options: TimeoutHarnessOptions): void {
  const start = (handler: (res: ServerResponse) => void) => startLoopbackAdapter(options.plugin, (_, res) => handler(res),
    options.key(), (server, apiKeyEnv) => ({ ...options.config(server, apiKeyEnv, MODEL), idleTimeoutMs: IDLE_MS }))
  const request: GenerateOptions = { model: MODEL, system: 'timeouts', tools: [], messages: [{ role: 'user', text: 'hi' }] }

  describe(`HTTP timeouts: ${name}`, () => {
    it('fails a stream that goes silent after one chunk with STREAM_STALLED, and closes the connection', async () => {
      let closed = false
      const h = await start((res) => {
        options.open(res)
        options.text(res, 'partial')
        res.on('close', () => (closed = true))
      })
      try {
        const started = Date.now()
        const seen: string[] = []
        const error = await (async () => {
          for await (const event of h.ctx.llm.stream(request)) if (event.type === 'text') seen.push(event.delta)
        })().then(() => undefined, (e: unknown) => e)
        const elapsed = Date.now() - started
        expect(error).toBeInstanceOf(LlmError)
        const cause = (error as LlmError).cause as { code?: string; message: string }
        expect(cause.code).toBe('STREAM_STALLED')
        expect(cause.message).toContain(`for ${IDLE_MS} ms after`)
        expect(cause.message).toContain('idleTimeoutMs')
        expect(seen.join('')).toBe('partial')
        expect(elapsed).toBeGreaterThanOrEqual(IDLE_MS - 20)
        expect(elapsed).toBeLessThan(IDLE_MS + 1500)
        const deadline = Date.now() + 2000
        while (!closed && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
        expect(closed).toBe(true)
      } finally {
        await h.teardown()
      }
    })

    it('serves a slow stream whole when each gap is shorter than idleTimeoutMs', async () => {
      const h = await start((res) => {
        options.open(res)
        let sent = 0
        const timer = setInterval(() => {
          if (sent === 5) {
            clearInterval(timer)
            return options.close(res)
          }
          options.text(res, `${sent++}`)
        }, IDLE_MS / 6)
        res.on('close', () => clearInterval(timer))
      })
      try {
        const events = []
        for await (const event of h.ctx.llm.stream(request)) events.push(event)
        expect(joinText(events)).toBe('01234')
        expect(events.at(-1)?.type).toBe('done')
      } finally {
        await h.teardown()
      }
    })
  })
}
