import { Context } from 'cordis'
import { rawService } from 'dsh-core'
import type { Agent } from 'dsh-agent-loop'
import AgentSpine from 'dsh-harness'
import ScriptedLlm from 'dsh-llm-scripted'
import PromptCache from 'dsh-cache-break-detector'
import { round, sideBySide } from './measure.ts'

const TOOLS = 200
/** History lengths measured, in turns; no conversation is ever restarted, so growth shows. */
const SIZES = [100, 2_000, 10_000]
/**
 * The scripted model's context window, in estimated tokens: 10,000 turns of this benchmark are about
 * 450k, so with the default 128k window the loop would compact the long histories down to a few thousand
 * messages and hide how a step scales with a long one. Compaction is measured in its own benchmark.
 */
const CONTEXT_WINDOW = 4_000_000
/** Agents per size, taken in turn, so the measured rounds add few turns to each history. */
const POOL = 8
const ROUNDS = 240

/**
 * One loop step (a whole one-step turn on the scripted model, 200 tools, header unchanged) at 100, 2,000
 * and 10,000 turns of history, against one `assemble()` on the raw service (the object the agent calls,
 * not a Cordis proxy), all measured side by side. The spine is mounted with the prompt-cache plugin, as
 * both shipped apps mount it, and its scripted model declares a window that holds every history whole
 * (`history_messages_10000_turns` shows it). Sessions stay in memory: fsync costs are the session
 * module's subject.
 */
export async function run(): Promise<Record<string, number>> {
  const ctx = new Context()
  await ctx.plugin(AgentSpine, { persist: false, scripted: false, persona: 'Benchmark persona. The working directory is {{cwd}}.' } as any)
  await ctx.plugin(ScriptedLlm, { models: [{ id: 'scripted-echo', contextWindow: CONTEXT_WINDOW }], toolUpdate: 'none' })
  await ctx.plugin(PromptCache)
  await ctx.plugin({
    name: 'bench-tools',
    inject: ['tools'],
    apply(ctx: Context) {
      for (let i = 0; i < TOOLS; i++) {
        ctx.tools.register({
          name: `tool_${String((i * 7919) % 10007).padStart(5, '0')}`,
          description: `Benchmark tool ${i}.`,
          parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' }, flag: { type: 'boolean' }, mode: { type: 'string' }, depth: { type: 'number' } } },
          execute: () => 'ok',
        })
      }
    },
  })
  const pools: Record<number, Agent[]> = {}
  const grow = async (size: number) => {
    const count = size === SIZES[SIZES.length - 1] ? 1 : POOL
    pools[size] = []
    for (let a = 0; a < count; a++) {
      const agent = await ctx.agentLoop.createAgent({ id: `bench-${size}-${a}` })
      for (let turn = 0; turn < size; turn++) await agent.prompt(`turn ${turn}: please look at file ${turn}`)
      pools[size].push(agent)
    }
  }
  const stepOf = (size: number) => {
    let next = 0
    const pool = pools[size]
    return () => pool[next++ % pool.length].prompt('hello')
  }
  // Phase one: the step against assemble() while the process holds only 100-turn histories, as a process
  // serving ordinary sessions does. Phase two adds the long histories and compares steps with each other:
  // holding 10,000-turn histories in the same heap makes every step pay more garbage collection.
  await grow(SIZES[0])
  const raw = rawService(ctx.systemPrompt)
  const first = pools[SIZES[0]][0]
  const assembleContext = { model: 'scripted-echo', cwd: ctx.agentLoop.cwd, agentId: first.id, scope: first.id }
  const alone = await sideBySide({ assemble: () => raw.assemble(assembleContext), step_100: stepOf(SIZES[0]) }, ROUNDS, 10)
  for (const size of SIZES.slice(1)) await grow(size)
  const fns: Record<string, () => unknown> = { assemble: () => raw.assemble(assembleContext) }
  for (const size of SIZES) fns[`step_${size}`] = stepOf(size)
  const m = await sideBySide(fns, ROUNDS, 10)
  return {
    step_ms_100_turns: round(m.step_100, 4),
    step_ms_10000_turns: round(m.step_10000, 4),
    step_over_raw_assemble: round(alone.step_100 / alone.assemble),
    step_over_raw_assemble_beside_10000_turns: round(m.step_100 / m.assemble),
    step_2000_turns_over_100_turns: round(m.step_2000 / m.step_100),
    step_10000_turns_over_100_turns: round(m.step_10000 / m.step_100),
    history_messages_10000_turns: pools[SIZES[SIZES.length - 1]][0].session.messages().length,
  }
}

export const targets = { step_over_raw_assemble: 10, step_10000_turns_over_100_turns: 1.5 }
