import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import { afterEach, describe, expect, it } from 'vitest'
import { client, methods } from '@agentclientprotocol/sdk'
import type { AnyMessage, ClientConnection, ContentBlock, SessionNotification, Stream } from '@agentclientprotocol/sdk'
import ScriptedLlm from 'dsh-llm-scripted'
import ToolsStatic from 'dsh-tools-static'
import AcpDemoApp from '../src/index.ts'
import type { AcpDemoConfig } from '../src/config.ts'
import { rejection } from './harness.ts'

/** Two in-memory ends of one ACP connection. */
function streamPair(): { agentSide: Stream; clientSide: Stream } {
  const toAgent = new TransformStream<AnyMessage, AnyMessage>()
  const toClient = new TransformStream<AnyMessage, AnyMessage>()
  return {
    agentSide: { readable: toAgent.readable, writable: toClient.writable },
    clientSide: { readable: toClient.readable, writable: toAgent.writable },
  }
}

const fibers: { dispose(): unknown }[] = []
afterEach(async () => {
  for (const fiber of fibers.splice(0)) await fiber.dispose()
})

async function setup(config: Partial<AcpDemoConfig> = {}, script?: object) {
  const ctx = new Context()
  const dir = await mkdtemp(join(tmpdir(), 'dsh-acp-inproc-'))
  const fiber = ctx.plugin(AcpDemoApp, { persistenceRoot: join(dir, 'sessions'), ...config } as AcpDemoConfig)
  fibers.push(fiber)
  await fiber
  await ctx.plugin(ToolsStatic, { tools: [{ name: 'lookup', description: 'Look up.', parameters: { type: 'object', properties: {} }, delayMs: 0 }] })
  if (script) {
    const file = join(dir, 'script.json')
    await writeFile(file, JSON.stringify(script))
    await ctx.plugin(ScriptedLlm, { models: ['slow'], script: file, toolUpdate: 'none' })
  }
  const { agentSide, clientSide } = streamPair()
  const serving = ctx.acpDemo.serve(agentSide)
  const updates: SessionNotification[] = []
  const connection: ClientConnection = client()
    .onNotification(methods.client.session.update, ({ params }) => { updates.push(params) })
    .connect(clientSide)
  await connection.agent.request(methods.agent.initialize, { protocolVersion: 1 })
  const open = async () => (await connection.agent.request(methods.agent.session.new, { cwd: dir, mcpServers: [] })).sessionId
  const prompt = (sessionId: string, blocks: string | ContentBlock[]) => connection.agent.request(methods.agent.session.prompt, {
    sessionId, prompt: typeof blocks === 'string' ? [{ type: 'text', text: blocks }] : blocks,
  })
  return { ctx, fiber, serving, connection, updates, open, prompt }
}

describe('the ACP agent (in process)', () => {
  it('gives every session/new its own DSH agent, whose id is the session id', async () => {
    const { ctx, open } = await setup()
    const [a, b] = [await open(), await open()]
    expect(a).not.toBe(b)
    expect(ctx.agentLoop.agent(a).session.id).toBe(a)
    expect(ctx.agentLoop.agent(b).session.id).toBe(b)
  })

  it('refuses an unknown session id with a resource-not-found error naming it and the known ones', async () => {
    const { open, prompt } = await setup()
    const known = await open()
    const error = await rejection(prompt('ghost', 'hi'))
    expect(error.code).toBe(-32002)
    expect(error.message).toContain('"ghost"')
    expect(error.message).toContain(known)
  })

  it('reads text blocks as written and resource links as markdown links', async () => {
    const { open, prompt, updates } = await setup()
    const sessionId = await open()
    await prompt(sessionId, [
      { type: 'text', text: 'look at ' },
      { type: 'resource_link', name: 'a.ts', uri: 'file:///w/a.ts' },
      { type: 'text', text: ' please' },
    ])
    const text = updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk')
      .map((n) => (n.update as { content: { text: string } }).content.text).join('')
    expect(text).toBe('echo: look at [a.ts](file:///w/a.ts) please')
  })

  it('refuses content blocks it did not advertise, with invalid params', async () => {
    const { open, prompt } = await setup()
    const sessionId = await open()
    const error = await rejection(prompt(sessionId, [{ type: 'image', data: 'AA==', mimeType: 'image/png' }]))
    expect(error.code).toBe(-32602)
    expect(error.message).toMatch(/prompt\[0\] is a "image" block; supported block types: text, resource_link/)
  })

  it('marks a failed tool call failed', async () => {
    const { open, prompt, updates } = await setup()
    const sessionId = await open()
    expect((await prompt(sessionId, '/call missing {}')).stopReason).toBe('end_turn')
    const result = updates.find((n) => n.update.sessionUpdate === 'tool_call_update')!.update
    expect(result).toMatchObject({ status: 'failed' })
    expect((result as { content: { content: { text: string } }[] }).content[0].content.text).toMatch(/missing/)
  })

  it('answers a turn that hits the step limit with max_turn_requests', async () => {
    const { open, prompt } = await setup({ maxSteps: 1 })
    const sessionId = await open()
    expect((await prompt(sessionId, '/call lookup {}')).stopReason).toBe('max_turn_requests')
  })

  it('advertises /compact after session/new and runs it as a prompt', async () => {
    const { ctx, open, prompt, updates } = await setup()
    const sessionId = await open()
    await expect.poll(() => updates.find((n) => n.update.sessionUpdate === 'available_commands_update')).toBeTruthy()
    const advertised = updates.find((n) => n.update.sessionUpdate === 'available_commands_update')!
    expect(advertised.sessionId).toBe(sessionId)
    expect((advertised.update as { availableCommands: { name: string }[] }).availableCommands.map((command) => command.name)).toEqual(['compact', 'side'])

    const empty = await rejection(prompt(sessionId, '/compact'))
    expect(empty.message).toBe('compaction failed: nothing to compact: no request was made yet')
    await prompt(sessionId, 'hello')
    expect((await prompt(sessionId, ' /compact ')).stopReason).toBe('end_turn')
    const said = updates.filter((n) => n.update.sessionUpdate === 'agent_message_chunk').at(-1)!.update as { content: { text: string } }
    expect(said.content.text).toMatch(/^Compacted: the conversation through event \d+ is now a summary of \d+ characters\.$/)
    const events = ctx.agentLoop.agent(sessionId).session.events()
    expect(events.at(-1)).toMatchObject({ type: 'context/compaction', data: { reason: 'manual', step: 0 } })
  })

  it('refuses a second prompt while a turn runs, and cancels the first on session/cancel', async () => {
    const { ctx, open, prompt, connection } = await setup({ model: 'slow' }, { responses: [{ text: 'late', delayMs: 20_000 }] })
    const sessionId = await open()
    const first = prompt(sessionId, 'one')
    await expect.poll(() => ctx.agentLoop.agent(sessionId).status).toBe('running')
    const error = await rejection(prompt(sessionId, 'two'))
    expect(error.code).toBe(-32600)
    expect(error.message).toMatch(/already running a prompt turn/)
    await connection.agent.notify(methods.agent.session.cancel, { sessionId })
    expect((await first).stopReason).toBe('cancelled')
  })

  it('releases its agents when the connection closes', async () => {
    const { ctx, open, serving } = await setup()
    const sessionId = await open()
    serving.connection.close()
    await serving.closed
    expect(() => ctx.agentLoop.agent(sessionId)).toThrow(/no agent/)
    expect(ctx.sessions.get(sessionId)).toBeUndefined()
  })

  it('closes its connections when the plugin is disposed', async () => {
    const { fiber, serving } = await setup()
    await fiber.dispose()
    expect(serving.connection.signal.aborted).toBe(true)
    await serving.closed
  })
})
