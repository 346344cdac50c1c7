import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-agent-spine-demo'
import { COMPACTION_INSTRUCTION, SUMMARY_PREFIX } from 'dsh-core'
import { startLoopback, toolsPlugin } from 'dsh-llm/testing'
import { describe, expect, it } from 'vitest'
import AnthropicProvider from '../src/index.ts'
import { reply, sendEvents } from './emulator.ts'
import { fakeKey } from './setup.ts'

const TURNS = 9
const text = (turn: number) => `Turn ${turn}: the pager skips the second page when the offset is computed from a zero-based index.`

const isCompaction = (body: any) => body.messages.at(-1)?.content === COMPACTION_INSTRUCTION

/**
 * The same nine turns through the real loop and the Anthropic adapter (addition-only) on loopback, with
 * `grep` added before the third turn; the server counts a token per four bytes of body. With `window`
 * the session compacts at half of it; without, it never does.
 */
async function conversation(window?: number) {
  const server = await startLoopback((_req, res, recorded) => {
    const body = JSON.parse(recorded.body)
    const usage = { input_tokens: Math.ceil(recorded.body.length / 4), output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
    sendEvents(res, reply({ text: isCompaction(body) ? 'The user is chasing a pagination bug.' : 'ok', start: usage }))
  })
  const key = fakeKey()
  const ctx = new Context()
  await ctx.plugin(AgentSpine, {
    scripted: false, model: 'test-model', persistenceRoot: await mkdtemp(join(tmpdir(), 'dsh-compact-')), compactAt: window ? 0.5 : 1,
  } as any)
  await ctx.plugin(AnthropicProvider, {
    baseURL: server.origin, apiKeyEnv: key.name, models: [{ id: 'test-model', toolUpdate: 'addition-only', contextWindow: window ?? 1_000_000 }],
  } as any)
  await ctx.plugin(toolsPlugin('base', ['read']))
  const agent = await ctx.agentLoop.createAgent({ id: 'compacting' })
  for (let turn = 1; turn <= TURNS; turn++) {
    if (turn === 3) await ctx.plugin(toolsPlugin('search', ['grep']))
    expect((await agent.prompt(text(turn))).reason).toBe('done')
  }
  await server.close()
  key.cleanup()
  return { raw: server.requests.map((request) => request.body), bodies: server.bodies(), events: agent.session.events() }
}

/** The raw body up to the end of its last message: Messages bodies end with `],"stream":true}`. */
const throughMessages = (raw: string) => raw.slice(0, raw.lastIndexOf('],"stream":true}'))

describe('compaction on the Messages route', () => {
  it('sends a compaction request whose bytes start with the main request\'s, then the same prefix with the summary', async () => {
    const [compacting, plain] = await Promise.all([conversation(700), conversation()])
    const index = compacting.bodies.findIndex(isCompaction)
    expect(index).toBeGreaterThan(2)
    // Until then both runs sent the same bytes; the compaction request is the main request of that step plus one message.
    expect(compacting.raw.slice(0, index)).toEqual(plain.raw.slice(0, index))
    const main = plain.raw[index]!
    const compaction = compacting.raw[index]!
    expect(compaction.startsWith(throughMessages(main))).toBe(true)
    expect(compaction.slice(throughMessages(main).length)).toBe(`,${JSON.stringify({ role: 'user', content: COMPACTION_INSTRUCTION })}],"stream":true}`)

    // After it: the same tools (grep still deferred) and system, the grep announcement kept, then the summary.
    const after = compacting.bodies[index + 1]
    const before = compacting.bodies[index]
    expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools))
    expect(after.tools.find((tool: any) => tool.name === 'grep')).toMatchObject({ defer_loading: true })
    expect(after.system).toBe(before.system)
    expect(after.messages[0]).toEqual({ role: 'system', content: [expect.objectContaining({ type: 'tool_addition', tool: expect.objectContaining({ name: 'grep' }) })] })
    expect(after.messages[1]).toEqual({ role: 'user', content: `${SUMMARY_PREFIX}The user is chasing a pagination bug.` })
    expect(after.messages.at(-1).content).toMatch(/^Turn \d:/)
    const logged = compacting.events.filter((event) => event.type === 'context/compaction')
    expect(logged.length).toBeGreaterThanOrEqual(1)
    expect(logged[0]!.data).toMatchObject({ reason: 'auto', usage: { inputTokens: Math.ceil(compaction.length / 4), outputTokens: 5 } })
  })
})
