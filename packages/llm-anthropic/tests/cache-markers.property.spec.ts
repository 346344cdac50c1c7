import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import AgentSpine from 'dsh-harness'
import { rebuildLastRequest } from 'dsh-agent-loop'
import type { ToolSchema } from 'dsh-core'
import { startEmulator, MAX_MARKS } from 'dsh-llm-testing/emulator'
import AnthropicProvider from '../src/index.ts'
import { fakeKey } from './setup.ts'

const MODEL = 'claude-prop'
/** Eight tools whose declarations alone pass Anthropic's 1,024-token minimum; the last four join later. */
const TOOLS: ToolSchema[] = ['read', 'write', 'grep', 'shell', 'fetch', 'browse', 'todo', 'commit'].map((name) => ({
  name,
  description: `The ${name} tool. ${'It does its one job carefully and reports what it did in plain words. '.repeat(12)}`,
  parameters: { type: 'object', properties: { target: { type: 'string', description: `What ${name} works on.` } } },
}))
const BASE = TOOLS.slice(0, 4)
const LATER = TOOLS.slice(4)

/** One scripted user turn: a text, or a call of a declared tool; optionally a tool joins or leaves before it. */
interface Turn {
  text?: string
  call?: number
  join?: number
  leave?: number
}

const turnArb: fc.Arbitrary<Turn> = fc.record({
  text: fc.option(fc.string({ minLength: 1, maxLength: 40 }).map((text) => text.replace(/^\/+/, '') || 'hello'), { nil: undefined }),
  call: fc.option(fc.nat({ max: 7 }), { nil: undefined }),
  join: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
  leave: fc.option(fc.nat({ max: 3 }), { nil: undefined }),
}, { requiredKeys: [] })

/**
 * Plays `turns` through the real spine and the real Anthropic adapter against the emulator's Anthropic route
 * (breakpoints only, 20-block lookback, 1,024-token minimum): tools join and leave as scripted, `/call` lines
 * make the emulated model call a declared tool. Returns every request the adapter sent, what the emulator
 * read from cache for each, whether a header change was logged at its step, and the body rebuilt from the log.
 */
async function play(turns: Turn[]) {
  const emulator = await startEmulator([MODEL])
  const root = await mkdtemp(join(tmpdir(), 'dsh-markers-'))
  const key = fakeKey()
  const ctx = new Context()
  const fibers: { dispose(): Promise<unknown> }[] = []
  try {
    fibers.push(await ctx.plugin(AgentSpine, { scripted: false, model: MODEL, persistenceRoot: root } as any))
    fibers.push(await ctx.plugin(AnthropicProvider, { baseURL: `${emulator.origin}/anthropic`, apiKeyEnv: key.name, models: [{ id: MODEL, provider: 'anthropic' }] } as any))
    const declared = new Map<string, { dispose(): Promise<unknown> }>()
    fibers.push({ dispose: async () => { for (const fiber of declared.values()) await fiber.dispose() } })
    const declare = async (tool: ToolSchema) => {
      if (declared.has(tool.name)) return
      declared.set(tool.name, await ctx.plugin({
        name: `tool-${tool.name}`, inject: ['tools'],
        apply: (inner: Context) => { inner.tools.register({ ...tool, execute: () => `${tool.name} done` }) },
      }))
    }
    for (const tool of BASE) await declare(tool)
    const agent = await ctx.agentLoop.createAgent({ id: 'markers' })
    for (const turn of turns) {
      if (turn.join !== undefined) await declare(LATER[turn.join]!)
      const leaving = turn.leave === undefined ? undefined : LATER[turn.leave]!.name
      if (leaving && declared.has(leaving)) {
        await declared.get(leaving)!.dispose()
        declared.delete(leaving)
      }
      const names = [...declared.keys()]
      const text = turn.call === undefined ? turn.text ?? 'go on' : `/call ${names[turn.call % names.length]} {"target":"x"}`
      const result = await agent.prompt(text)
      expect(result.reason, String(result.error)).toBe('done')
    }
    const events = agent.session.events()
    // per step, in order: was a header logged at it after the first one (a tool change, not the initial header)?
    const changed: boolean[] = []
    for (const event of events) {
      if (event.type === 'step/start') changed.push(false)
      if (event.type === 'request/header' && event.data.reason !== 'initial') changed[changed.length - 1] = true
    }
    const sent = emulator.received.map((request) => request.body)
    const ledger = [...emulator.ledger]
    const problems = [...emulator.problems]
    // the last request rebuilt from the log alone goes out once more: its body must be the same bytes
    for await (const _ of ctx.llm.stream(rebuildLastRequest(events)!)) { /* drain */ }
    return { sent, ledger, changed, problems, rebuilt: emulator.received.at(-1)!.body }
  } finally {
    await ctx.agentLoop?.removeAgent('markers').catch(() => {})
    for (const fiber of fibers.reverse()) await fiber.dispose()
    key.cleanup()
    await emulator.close()
    await rm(root, { recursive: true, force: true })
  }
}

const markersOf = (body: string) => (body.match(/"cache_control"/g) ?? []).length

describe('Anthropic cache markers over generated sessions', () => {
  it('at most 4 breakpoints; the same session gives the same bytes; the read never shrinks unless a header change was logged', { timeout: 240_000 }, async () => {
    await fc.assert(fc.asyncProperty(fc.array(turnArb, { minLength: 2, maxLength: 7 }), async (turns) => {
      const first = await play(turns)
      expect(first.problems).toEqual([])
      for (const body of first.sent) expect(markersOf(body)).toBeLessThanOrEqual(MAX_MARKS)
      // markers are a pure function of the request: a second run, and the request rebuilt from the log, agree byte for byte
      const second = await play(turns)
      expect(second.sent).toEqual(first.sent)
      expect(first.rebuilt).toBe(first.sent.at(-1))
      expect(first.ledger).toHaveLength(first.changed.length)
      first.ledger.forEach((entry, index) => {
        expect(entry.marks).toBeGreaterThan(0)
        if (index === 0 || first.changed[index]) return
        const before = first.ledger[index - 1]!
        // under Anthropic's rules the whole previous request is read again (its newest message carried a breakpoint)
        expect(entry.cachedTokens).toBeGreaterThanOrEqual(before.cachedTokens)
        expect(entry.cachedTokens).toBeGreaterThanOrEqual(before.promptTokens - 1)
      })
    }), { numRuns: 8 })
  })
})
