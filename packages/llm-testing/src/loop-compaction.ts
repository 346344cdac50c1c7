import { mkdtemp } from 'node:fs/promises'
import type { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context, type Plugin } from 'cordis'
import { COMPACTION_INSTRUCTION, SUMMARY_PREFIX } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import type { FakeApiKey } from './fake-key.ts'
import { startLoopback, type Loopback } from './loopback.ts'
import { toolsPlugin } from './plugin.ts'

/** What the compaction checks need to know about one adapter's route. */
export interface CompactionRoute {
  /** The route's name, for test titles (`Chat Completions`). */
  name: string
  /** The plugin that assembles the real loop (`dsh-harness`, which dsh-llm does not depend on). */
  spine: Plugin
  adapter: Plugin
  /** A fresh fake key per run. */
  key(): FakeApiKey
  /** The adapter config serving the model entry `model` from `server`, with the key in `apiKeyEnv`. */
  config(server: Loopback, apiKeyEnv: string, model: { id: string; contextWindow: number }): object
  /** A text reply that reports `inputTokens` prompt tokens and 5 output tokens. */
  reply(res: ServerResponse, text: string, inputTokens: number): void
  /** An HTTP error answer of `status` saying `message`. */
  fail(res: ServerResponse, status: number, message: string): void
  /** A raw request body up to the end of its last message. */
  throughMessages(raw: string): string
  /** The route's own checks of the first request after a compaction (its first message), given the compaction request. */
  afterCompaction(after: any, compaction: any): void
}

const TURNS = 9
const SUMMARY = 'The user is chasing a pagination bug.'
const text = (turn: number) => `Turn ${turn}: the pager skips the second page when the offset is computed from a zero-based index.`
const isCompaction = (body: any) => body.messages.at(-1)?.content === COMPACTION_INSTRUCTION

/**
 * The same nine turns through the real loop and `route`'s adapter on loopback, with `grep` added before the
 * third turn; the server counts a token per four bytes of body. With `window` the session compacts at half
 * of it; without, it never does. With `failCompaction` every compaction request gets an HTTP 500.
 */
async function conversation(route: CompactionRoute, window?: number, failCompaction = false) {
  const server = await startLoopback((_req, res, recorded) => {
    const compacting = isCompaction(JSON.parse(recorded.body))
    if (failCompaction && compacting) return route.fail(res, 500, 'summarizer down')
    route.reply(res, compacting ? SUMMARY : 'ok', Math.ceil(recorded.body.length / 4))
  })
  const key = route.key()
  const ctx = new Context()
  await ctx.plugin(route.spine, {
    scripted: false, model: 'test-model', persistenceRoot: await mkdtemp(join(tmpdir(), 'dsh-compact-')), compactAt: window ? 0.5 : 1,
    // the conversation's own tools only: the window figures are sized for them (the harness offers the agent tool by default)
    agentTool: false,
  })
  await ctx.plugin(route.adapter, route.config(server, key.name, { id: 'test-model', contextWindow: window ?? 1_000_000 }))
  await ctx.plugin(toolsPlugin('base', ['read']))
  const agent = await (ctx as any).agentLoop.createAgent({ id: 'compacting' })
  const failures: string[] = []
  ctx.on('agent/update' as any, (_agent: unknown, update: any) => { if (update.type === 'compaction' && update.error) failures.push(update.error) })
  for (let turn = 1; turn <= TURNS; turn++) {
    if (turn === 3) await ctx.plugin(toolsPlugin('search', ['grep']))
    expect((await agent.prompt(text(turn))).reason).toBe('done')
  }
  await server.close()
  key.cleanup()
  const events: { type: string; data: any }[] = agent.session.events()
  return { raw: server.requests.map((request) => request.body), bodies: server.bodies(), events, failures }
}

/**
 * Compaction through the real loop on one adapter's route: the compaction request is the main request of
 * its step plus one message (a byte extension), the next request starts from the summary with the same tools,
 * and a failing compaction request leaves the turns working and is tried again later.
 */
export function compactionCases(route: CompactionRoute): void {
  describe(`compaction on the ${route.name} route`, () => {
    it('sends a compaction request whose bytes start with the main request\'s, then the same prefix with the summary', async () => {
      const [compacting, plain] = await Promise.all([conversation(route, 700), conversation(route)])
      const index = compacting.bodies.findIndex(isCompaction)
      expect(index).toBeGreaterThan(2)
      // Until then both runs sent the same bytes; the compaction request is the main request of that step plus one message.
      expect(compacting.raw.slice(0, index)).toEqual(plain.raw.slice(0, index))
      const main = plain.raw[index]!
      const compaction = compacting.raw[index]!
      const prefix = route.throughMessages(main)
      expect(compaction).toBe(`${prefix},${JSON.stringify({ role: 'user', content: COMPACTION_INSTRUCTION })}${main.slice(prefix.length)}`)

      // After it: the same tools, the summary second (after the route's own first message), then the new turn.
      const after = compacting.bodies[index + 1]
      expect(JSON.stringify(after.tools)).toBe(JSON.stringify(compacting.bodies[index].tools))
      expect(after.messages[1]).toEqual({ role: 'user', content: `${SUMMARY_PREFIX}${SUMMARY}` })
      expect(after.messages.at(-1).content).toMatch(/^Turn \d:/)
      route.afterCompaction(after, compacting.bodies[index])
      const logged = compacting.events.filter((event) => event.type === 'context/compaction')
      expect(logged.length).toBeGreaterThanOrEqual(1)
      expect(logged[0]!.data).toMatchObject({ reason: 'auto', usage: { inputTokens: Math.ceil(compaction.length / 4), outputTokens: 5 } })
    })

    it('goes on without compacting when the compaction request gets an HTTP 500, and tries again on later turns', async () => {
      const run = await conversation(route, 700, true)
      expect(run.events.filter((event) => event.type === 'context/compaction')).toEqual([])
      expect(run.failures.length).toBeGreaterThanOrEqual(2)
      expect(run.failures[0]).toMatch(/^the compaction request failed: .*500.*summarizer down/)
      expect(run.events.filter((event) => event.type === 'turn/end').every((event) => event.data.reason === 'done')).toBe(true)
    })
  })
}
