import { sampleRequest, streamError } from 'dsh-llm/testing'
import { describe, expect, it } from 'vitest'
import { AnthropicAdapterError } from '../src/index.ts'
import { frame, messageStart } from './emulator.ts'
import { setup } from './setup.ts'

// The failures every HTTP adapter shares run in http-contract.spec.ts; these are the Messages wire's own.

const textStart = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }
const textDelta = (text: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })

describe('HTTP failures', () => {
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

describe('cancellation and timeouts', () => {
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
})
