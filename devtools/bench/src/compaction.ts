import { Context } from 'cordis'
import type { Agent } from 'dsh-agent-loop'
import AgentSpine from 'dsh-harness'
import { round } from './measure.ts'

const TOOLS = 200
const ROUNDS = 200
const WARMUP = 10
/** Both conversations restart after this many turns, in step, so they always hold the same history length. */
const TURNS_PER_CONVERSATION = 20

/** 200 tools of one small schema, registered at once as one plugin's listing. */
const TOOL_LIST = Array.from({ length: TOOLS }, (_, i) => ({
  name: `tool_${String(i).padStart(3, '0')}`, description: `Benchmark tool ${i}.`,
  parameters: { type: 'object', properties: { path: { type: 'string' }, limit: { type: 'integer' } } }, execute: () => 'ok',
}))

/**
 * The step right after a compaction against the same step without one: two agents on the scripted model
 * with 200 tools take the same turns; before each measured turn one of them compacts (not timed). Reports
 * the ratio of median step times and of the steps' input tokens (the offline model's estimate).
 */
export async function run(): Promise<Record<string, number>> {
  const ctx = new Context()
  await ctx.plugin(AgentSpine, { persist: false, persona: 'Benchmark persona.' } as any)
  await ctx.plugin({ name: 'bench-compaction-tools', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.registerMany(TOOL_LIST) } })
  let conversation = 0
  let agents: { plain: Agent; compacting: Agent } | undefined
  let turns = 0
  const fresh = async () => {
    const plain = await ctx.agentLoop.createAgent({ id: `plain-${conversation}` })
    const compacting = await ctx.agentLoop.createAgent({ id: `compacting-${conversation++}` })
    for (const agent of [plain, compacting]) await agent.prompt('Customers report that page two of the order list is empty.')
    agents = { plain, compacting }
    turns = 1
  }
  const times = { plain: [] as number[], compacting: [] as number[] }
  const tokens = { plain: 0, compacting: 0 }
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    if (!agents || turns >= TURNS_PER_CONVERSATION) await fresh()
    turns++
    const outcome = await agents!.compacting.compact()
    if (!outcome.ok) throw new Error(`bench: compaction failed: ${outcome.error}`)
    for (const name of ['compacting', 'plain'] as const) {
      const agent = agents![name]
      const start = performance.now()
      const result = await agent.prompt(`Turn ${turns}: look at the offset computation once more.`)
      const elapsed = performance.now() - start
      if (result.reason !== 'done') throw new Error(`bench: a ${name} turn ended with ${result.reason}: ${result.error}`)
      if (round < WARMUP) continue
      times[name].push(elapsed)
      tokens[name] += lastInputTokens(agent)
    }
  }
  return {
    step_after_compaction_vs_plain: round(median(times.compacting) / median(times.plain)),
    input_tokens_after_compaction_vs_plain: round(tokens.compacting / tokens.plain),
  }
}

function lastInputTokens(agent: Agent): number {
  const event = agent.session.events().findLast((item) => item.type === 'assistant/message')
  return event?.data.usage?.inputTokens ?? 0
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}
