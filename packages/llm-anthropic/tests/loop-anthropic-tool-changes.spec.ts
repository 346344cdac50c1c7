import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import { startEmulator } from 'dsh-llm-testing/emulator'
import { describe, expect, it } from 'vitest'
import AnthropicProvider from '../src/index.ts'
import { fakeKey } from './setup.ts'

type Mode = 'addition-only' | 'in-history'
// a Claude model the profile knows to take tool-change blocks: no per-entry override
const MODEL = 'claude-opus-5-5'

interface ToolService {
  register(tool: { name: string; description: string; parameters: object; execute: () => string }): unknown
}

/** A plugin registering tools whose descriptions are long enough (about 600 tokens each) to pass Anthropic's 1,024-token minimum. */
function longTools(name: string, tools: readonly string[]) {
  return {
    name,
    inject: ['tools'],
    apply(ctx: Context) {
      for (const tool of tools) {
        (ctx as unknown as { tools: ToolService }).tools.register({
          name: tool, description: `The ${tool} tool. ${`It ${tool}s what it is given. `.repeat(120)}`,
          parameters: { type: 'object', properties: { path: { type: 'string' } } }, execute: () => `${tool} ok`,
        })
      }
    },
  }
}

/**
 * Four turns through the real loop and the real Anthropic adapter against the emulator's Anthropic route
 * (`/anthropic`, which refuses with HTTP 400 whatever Anthropic would refuse): `read` and `write`, then `grep`
 * joins, then `write` leaves, then one more turn.
 */
async function session(mode: Mode) {
  const emulator = await startEmulator([MODEL])
  const key = fakeKey()
  const ctx = new Context()
  await ctx.plugin(AgentSpine, { scripted: false, model: MODEL, persistenceRoot: await mkdtemp(join(tmpdir(), 'dsh-anth-loop-')) } as any)
  await ctx.plugin(AnthropicProvider, { baseURL: `${emulator.origin}/anthropic`, apiKeyEnv: key.name, provider: 'anthropic', models: [{ id: MODEL, toolUpdate: mode }] } as any)
  await ctx.plugin(longTools('base', ['read']))
  const writer = await ctx.plugin(longTools('writer', ['write']))
  const agent = await ctx.agentLoop.createAgent({ id: `anth-${mode}` })
  const results = [await agent.prompt('one')]
  await ctx.plugin(longTools('search', ['grep']))
  results.push(await agent.prompt('two'))
  await writer.dispose()
  results.push(await agent.prompt('three'), await agent.prompt('four'))
  const ledger = [...emulator.ledger]
  const problems = [...emulator.problems]
  await emulator.close()
  key.cleanup()
  return { ledger, problems, results }
}

describe('Anthropic\'s own tool changes through the loop, the adapter and the emulator', () => {
  it.each(['addition-only', 'in-history'] as Mode[])('%s: a tool joins and another leaves mid-session without breaking the cached prefix', async (mode) => {
    const { ledger, problems, results } = await session(mode)
    expect(problems).toEqual([])
    expect(results.map((result) => result.reason)).toEqual(['done', 'done', 'done', 'done'])
    expect(ledger).toHaveLength(4)
    expect(ledger[0]!.promptTokens).toBeGreaterThan(1024)
    // the addition keeps the whole cached prefix: request 2 reads all of request 1 (but its closing marks)
    expect(ledger[1]!.cachedTokens).toBeGreaterThanOrEqual(ledger[0]!.promptTokens - 2)
    // and brings grep's definition (about 850 tokens) into the prompt after that prefix, in a trailing system
    // message that carries no breakpoint: request 3 reads all of request 2 but that definition, once
    const definition = ledger[1]!.promptTokens - ledger[0]!.promptTokens
    expect(definition).toBeGreaterThan(800)
    expect(ledger[2]!.cachedTokens).toBeGreaterThanOrEqual(ledger[1]!.promptTokens - definition - 2)
    // the removal keeps the prefix too: request 4 reads all of request 3 but its few-token tool_removal message
    expect(ledger[3]!.cachedTokens).toBeGreaterThanOrEqual(ledger[2]!.promptTokens - 12)
    // nothing before the changes is ever sent again uncached
    expect(ledger.slice(1).every((entry) => entry.cachedTokens >= ledger[0]!.promptTokens - 2)).toBe(true)
  }, 30_000)
})
