import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-agent-spine-demo'
import { INSPECTION_SERVICE } from 'dsh-core'
import { startLoopback } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import OpenAIProvider from '../src/index.ts'

const UNSET = 'DSH_TEST_INSPECTION_UNSET_KEY'

/** The spine and the adapter, its key variable unset; `inspection` provides what `boot({ inspection: true })` does. */
async function start(inspection: boolean, origin: string) {
  delete process.env[UNSET]
  const ctx = new Context()
  if (inspection) ctx.provide(INSPECTION_SERVICE, { inspection: true })
  await ctx.plugin(AgentSpine, { scripted: false, model: 'test-model', persistenceRoot: await mkdtemp(join(tmpdir(), 'dsh-inspection-')) } as any)
  const fiber = ctx.plugin(OpenAIProvider, { baseURL: origin, apiKeyEnv: UNSET, models: ['test-model'] } as any)
  return { ctx, fiber }
}

describe('an HTTP adapter in an app booted for inspection (dsh-prompt)', () => {
  it('starts without its API key, serves the model\'s facts, and still refuses to call it without the key', async () => {
    let requests = 0
    const server = await startLoopback((_req, res) => { requests++; res.end() })
    try {
      const { ctx, fiber } = await start(true, server.origin)
      await fiber
      expect(ctx.llm.cachePolicy('test-model')).toBeDefined()
      const agent = await ctx.agentLoop.createAgent()
      const turn = await agent.prompt('hi')
      expect(turn.reason).toBe('error')
      expect(turn.error).toContain(`environment variable ${UNSET} is not set (needed by dsh-llm-openai for model test-model)`)
      expect(requests).toBe(0)
    } finally {
      await server.close()
    }
  })

  it('fails its start without the key outside an inspection, as before', async () => {
    const { ctx, fiber } = await start(false, 'http://127.0.0.1:1')
    await expect(fiber).rejects.toThrow(`environment variable ${UNSET} is not set (needed by dsh-llm-openai for model test-model); export it, or disable this entry`)
    expect(ctx.llm.models()).not.toContain('test-model')
  })
})
