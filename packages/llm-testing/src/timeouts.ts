import type { ServerResponse } from 'node:http'
import { describe, expect, it } from 'vitest'
import { LlmError } from 'dsh-llm'
import type { HttpWire } from './http-wire.ts'
import type { LoopbackAdapter } from './loopback-adapter.ts'
import type { LoopbackHandler } from './loopback.ts'
import { joinText, sampleRequest } from './streams.ts'

const IDLE_MS = 600

/** The frames that carry only `texts[index]`, after the frames of the texts before it. */
function deltaFrames(wire: HttpWire, texts: string[], index: number): string {
  return wire.textFrames(texts.slice(0, index + 1)).frames.slice(wire.textFrames(texts.slice(0, index)).frames.length)
}

/**
 * The idle-timeout checks of the HTTP contract, against a real loopback server: a stream that goes
 * silent after it started fails with `STREAM_STALLED` and releases the connection, and a slow stream
 * whose events come closer together than `idleTimeoutMs` is served whole.
 */
export function idleTimeoutCases(wire: HttpWire, setup: (handler: LoopbackHandler, config?: object) => Promise<LoopbackAdapter>): void {
  const streamHeaders = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })

  describe('idle timeout', () => {
    it('fails a stream that goes silent after one chunk with STREAM_STALLED, and closes the connection', async () => {
      let closed = false
      const h = await setup((_, res) => {
        res.on('close', () => (closed = true))
        streamHeaders(res)
        res.write(wire.textFrames(['partial']).frames)
        // …and says nothing more.
      }, { idleTimeoutMs: IDLE_MS })
      const started = Date.now()
      const seen: string[] = []
      const error = await (async () => {
        for await (const event of h.ctx.llm.stream(sampleRequest())) if (event.type === 'text') seen.push(event.delta)
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
    })

    it('serves a slow stream whole when each gap is shorter than idleTimeoutMs', async () => {
      const texts = ['0', '1', '2', '3', '4']
      const h = await setup((_, res) => {
        streamHeaders(res)
        res.write(wire.textFrames([]).frames)
        let sent = 0
        const timer = setInterval(() => {
          if (sent === texts.length) {
            clearInterval(timer)
            return res.end(wire.endFrames)
          }
          res.write(deltaFrames(wire, texts, sent++))
        }, IDLE_MS / 6)
        res.on('close', () => clearInterval(timer))
      }, { idleTimeoutMs: IDLE_MS })
      const events = []
      for await (const event of h.ctx.llm.stream(sampleRequest())) events.push(event)
      expect(joinText(events)).toBe('01234')
      expect(events.at(-1)?.type).toBe('done')
    })
  })
}
