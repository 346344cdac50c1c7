import { Context } from 'cordis'
import type { Agent } from 'dsh-agent-loop'
import AgentSpine from 'dsh-agent-spine-demo'
import { round, sideBySide } from './measure.ts'

const TOOLS = 200
/** Conversations restart after this many turns, so every measured step carries a realistic, bounded history. */
const TURNS_PER_CONVERSATION = 20

/**
 * One loop step (a whole one-step turn on the scripted model, 200 tools, header unchanged) against one
 * assemble() of the same spine, measured side by side.
 */
export async function run(): Promise<Record<string, number>> {
  const ctx = new Context()
  await ctx.plugin(AgentSpine, { persist: false, persona: 'Benchmark persona.' } as any)
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
  let conversation = 0
  let agent: Agent | undefined
  let turns = 0
  const fresh = async () => {
    agent = await ctx.agentLoop.createAgent({ id: `bench-${conversation++}` })
    await agent.prompt('first turn logs the initial header')
    turns = 1
  }
  await fresh()
  const m = await sideBySide({
    assemble: () => ctx.systemPrompt.assemble({ model: 'scripted-echo', cwd: ctx.agentLoop.cwd, agentId: agent!.id }),
    step: async () => {
      if (turns >= TURNS_PER_CONVERSATION) await fresh()
      turns++
      return agent!.prompt('hello')
    },
  }, 400)
  return { step_overhead_vs_assemble: round(m.step / m.assemble) }
}

export const targets = { step_overhead_vs_assemble: 3 }
