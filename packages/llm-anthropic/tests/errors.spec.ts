import { sampleRequest, streamError } from 'dsh-llm/testing'
import { describe, expect, it } from 'vitest'
import { setup } from './setup.ts'

// The failures every HTTP adapter shares run in http-contract.spec.ts; these are the Messages wire's own.

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

