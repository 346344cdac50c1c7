import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import { startLoopback, toolsPlugin } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import AnthropicProvider from '../src/index.ts'
import { reply, sendEvents } from './wire-frames.ts'
import { fakeKey } from './setup.ts'

type Mode = 'none' | 'addition-only' | 'in-history'

/** What the provider renders as the prompt prefix: declared (not deferred) tools, system, then history. */
function rendered(body: any): string {
  const tools = body.tools.filter((tool: any) => !tool.defer_loading)
  return JSON.stringify({ tools, system: body.system, messages: body.messages })
}

/** `rendered` up to the end of the request's last message: what the next request must start with. */
const prefixOf = (body: any) => rendered(body).slice(0, -2)

/**
 * Four turns through the real loop and the real Anthropic adapter against a loopback server: base tools,
 * then `grep` added, then `write` removed, then `write` restored.
 */
async function conversation(mode: Mode) {
  const server = await startLoopback((_req, res) => sendEvents(res, reply({ text: 'ok' })))
  const key = fakeKey()
  const ctx = new Context()
  await ctx.plugin(AgentSpine, { scripted: false, model: 'test-model', persistenceRoot: await mkdtemp(join(tmpdir(), 'dsh-proj-')), agentTool: false } as any)
  await ctx.plugin(AnthropicProvider, { baseURL: server.origin, apiKeyEnv: key.name, models: [{ id: 'test-model', provider: 'deepseek', toolUpdate: mode }] } as any)
  await ctx.plugin(toolsPlugin('base', ['read']))
  const writer = await ctx.plugin(toolsPlugin('writer', ['write']))
  const agent = await ctx.agentLoop.createAgent({ id: `proj-${mode}` })
  await agent.prompt('one')
  await ctx.plugin(toolsPlugin('search', ['grep']))
  await agent.prompt('two')
  await writer.dispose()
  await agent.prompt('three')
  await ctx.plugin(toolsPlugin('writer-again', ['write']))
  await agent.prompt('four')
  const bodies = server.bodies()
  const betas = server.requests.map((request) => request.headers['anthropic-beta'])
  const events = agent.session.events()
  await server.close()
  key.cleanup()
  return { bodies, betas, events }
}

const updatesIn = (body: any) => body.messages.filter((message: any) => message.role === 'system').flatMap((message: any) => message.content)

describe('tool changes through the loop, projected per route', () => {
  it('log the same headers and tool-registry messages whatever the route supports', async () => {
    const runs = await Promise.all((['none', 'addition-only', 'in-history'] as Mode[]).map(conversation))
    const logs = runs.map(({ events }) => events
      .filter((event) => event.type === 'request/header' || event.type === 'developer/message')
      .map((event: any) => event.type === 'request/header'
        ? ['header', event.data.reason, event.data.header.tools.map((tool: any) => tool.name).join()]
        : ['tools', event.data.added.join(), event.data.removed.join(), event.data.headerSeq]))
    expect(logs[0]).toEqual(logs[1])
    expect(logs[0]).toEqual(logs[2])
    const headerSeqs = runs[0].events.filter((event) => event.type === 'request/header').map((event) => event.seq)
    expect(logs[0]).toEqual([
      ['header', 'initial', 'read,write'],
      ['header', 'change', 'grep,read,write'], ['tools', 'grep', '', headerSeqs[1]],
      ['header', 'change', 'grep,read'], ['tools', '', 'write', headerSeqs[2]],
      ['header', 'change', 'grep,read,write'], ['tools', 'write', '', headerSeqs[3]],
    ])
  })

  it('in-history keeps the previous request as a byte prefix across the addition and the removal', async () => {
    const { bodies, betas } = await conversation('in-history')
    expect(rendered(bodies[1]).startsWith(prefixOf(bodies[0]))).toBe(true)
    expect(rendered(bodies[2]).startsWith(prefixOf(bodies[1]))).toBe(true)
    expect(rendered(bodies[3]).startsWith(prefixOf(bodies[2]))).toBe(true)
    expect(bodies[1].tools.find((tool: any) => tool.name === 'grep')).toMatchObject({ defer_loading: true })
    expect(bodies[2].tools.map((tool: any) => tool.name)).toContain('write')
    expect(updatesIn(bodies[2])).toContainEqual({ type: 'tool_removal', name: 'write' })
    expect(betas[0]).toBeUndefined()
    expect(betas.slice(1).every(Boolean)).toBe(true)
  })

  it('addition-only keeps the prefix across the addition but not the removal', async () => {
    const { bodies } = await conversation('addition-only')
    expect(rendered(bodies[1]).startsWith(prefixOf(bodies[0]))).toBe(true)
    expect(updatesIn(bodies[1]).map((block: any) => [block.type, block.tool?.name])).toEqual([['tool_addition', 'grep']])
    expect(rendered(bodies[2]).startsWith(prefixOf(bodies[1]))).toBe(false)
    expect(updatesIn(bodies[2]).some((block: any) => block.type === 'tool_removal')).toBe(false)
    expect(bodies[2].tools.map((tool: any) => tool.name)).not.toContain('write')
  })

  it('none sends the full effective list and no update message reaches the model', async () => {
    const { bodies, betas } = await conversation('none')
    expect(bodies.map((body) => body.tools.map((tool: any) => tool.name).join())).toEqual(['read,write', 'grep,read,write', 'grep,read', 'grep,read,write'])
    expect(bodies.every((body) => updatesIn(body).length === 0)).toBe(true)
    expect(bodies.every((body) => body.tools.every((tool: any) => !tool.defer_loading))).toBe(true)
    expect(rendered(bodies[1]).startsWith(prefixOf(bodies[0]))).toBe(false)
    expect(betas.every((beta) => beta === undefined)).toBe(true)
  })
})
