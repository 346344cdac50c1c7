import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { AppBootError, boot } from 'dsh-app-boot'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resolverFor } from '../src/resolve.ts'
import { spineEntry, tempDir, writeApp } from './setup.ts'

const UNSET = 'DSH_TEST_INSPECTION_UNSET_KEY'

/** A loopback HTTP server that counts the requests it gets and answers none of them usefully. */
async function countingServer() {
  let requests = 0
  const server = createServer((_req, res) => { requests++; res.writeHead(500).end() })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { origin, requests: () => requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** The spine on `test-model`, served by dsh-llm-openai at `origin` with its key variable unset. */
async function appFile(origin: string): Promise<string> {
  const dir = await tempDir()
  return join(dir, await writeApp(dir, 'app.yml', [
    spineEntry({ scripted: false, model: 'test-model' }),
    { id: 'model', name: 'dsh-llm-openai', config: { baseURL: origin, apiKeyEnv: UNSET, models: ['test-model'] } },
  ]))
}

describe('an HTTP model adapter in an app booted for inspection (what dsh-prompt does)', () => {
  let server: Awaited<ReturnType<typeof countingServer>>
  beforeEach(async () => { delete process.env[UNSET]; server = await countingServer() })
  afterEach(async () => { await server.close() })

  it('starts without its API key, and a request still fails naming the variable before anything is sent', async () => {
    const file = await appFile(server.origin)
    const app = await boot({ file, resolve: resolverFor(file), logLevel: 'silent', inspection: true })
    try {
      expect(app.ctx.readiness.inspection).toBe(true)
      expect(app.ctx.llm.models()).toContain('test-model')
      const agent = await app.ctx.agentLoop.createAgent()
      const turn = await agent.prompt('hi')
      expect(turn.reason).toBe('error')
      expect(turn.error).toContain(`environment variable ${UNSET} is not set (needed by dsh-llm-openai for model test-model)`)
      expect(server.requests()).toBe(0)
    } finally {
      await app.dispose()
    }
  })

  it('fails the boot without the key when not inspecting, as the bins do', async () => {
    const file = await appFile(server.origin)
    const booted = boot({ file, resolve: resolverFor(file), logLevel: 'silent' })
    await expect(booted).rejects.toBeInstanceOf(AppBootError)
    await expect(booted).rejects.toThrow(`entry "model" (dsh-llm-openai): failed to start: environment variable ${UNSET} is not set `
      + '(needed by dsh-llm-openai for model test-model); export it, or disable this entry')
  })

  it('is not an inspection unless asked: readiness.inspection is false in an app booted to serve', async () => {
    process.env[UNSET] = 'sk-not-a-real-key'
    try {
      const file = await appFile(server.origin)
      const app = await boot({ file, resolve: resolverFor(file), logLevel: 'silent' })
      expect(app.ctx.readiness.inspection).toBe(false)
      await app.dispose()
    } finally {
      delete process.env[UNSET]
    }
  })
})
