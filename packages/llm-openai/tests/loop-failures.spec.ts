import { mkdtemp } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import { fakeApiKey, startLoopback } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import OpenAIProvider from '../src/index.ts'
import { chunk, sendError, sendStream, textReply } from './wire-frames.ts'

const failures: [string, (res: ServerResponse) => void, RegExp][] = [
  ['HTTP 500', (res) => sendError(res, 500, 'upstream exploded'), /500.*upstream exploded/],
  ['429 with retry-after', (res) => sendError(res, 429, 'slow down', { 'retry-after': '7' }), /429[\s\S]*retry after 7 s/],
  ['a connection reset mid-stream', (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.write(`data: ${JSON.stringify(chunk({ content: 'partial' }))}\n\n`, () => setTimeout(() => res.socket?.destroy(), 20))
  }, /lost mid-stream/],
  ['malformed server-sent events', (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' })
    res.end('data: {"choices":[{"delta":\n\n')
  }, /malformed server-sent event/],
]

describe('a failing provider through the real loop', () => {
  it.each(failures)('%s ends the turn balanced with a clear error, and the next turn works', async (_name, fail, message) => {
    let calls = 0
    const server = await startLoopback((_req, res) => {
      if (calls++ === 0) fail(res)
      else sendStream(res, textReply('recovered'))
    })
    const key = fakeApiKey('DSH_TEST_LOOP_KEY', 'sk-test-')
    try {
      const ctx = new Context()
      await ctx.plugin(AgentSpine, { scripted: false, model: 'test-model', persistenceRoot: await mkdtemp(join(tmpdir(), 'dsh-loop-fail-')) } as any)
      await ctx.plugin(OpenAIProvider, { baseURL: server.origin, apiKeyEnv: key.name, models: ['test-model'] } as any)
      const agent = await ctx.agentLoop.createAgent({ id: 'failing' })
      const errors: string[] = []
      ctx.on('agent/error', (_agent, error) => { errors.push(error.message) })

      const first = await agent.prompt('one')
      expect(first.reason).toBe('error')
      expect(first.error).toMatch(message)
      expect(first.error).not.toContain(key.value)
      expect(errors).toEqual([first.error])
      expect(agent.session.events().map((event) => event.type)).toEqual([
        'turn/start', 'user/message', 'step/start', 'request/header', 'step/end', 'turn/end',
      ])

      const second = await agent.prompt('two')
      expect(second).toMatchObject({ reason: 'done', text: 'recovered' })
      expect(agent.status).toBe('idle')
    } finally {
      key.cleanup()
      await server.close()
    }
  })
})
