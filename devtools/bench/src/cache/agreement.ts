import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import type { Agent } from 'dsh-agent-loop'
import AgentSpine from 'dsh-harness'
import AnthropicProvider from 'dsh-llm-anthropic'
import PromptCache, { type PromptCacheBreak } from 'dsh-cache-break-detector'
import { startEmulator } from 'dsh-llm-testing/emulator'
import { round } from '../measure.ts'
import { KEY_ENV } from './lifetime.ts'

/** The two models of the agreement scenario, both on the anthropic profile of the emulator's Anthropic route. */
export const AGREEMENT_MODELS = ['emulated-claude-a', 'emulated-claude-b'] as const
const AGENT = 'agreement'
// long enough that a miss is a break (the detector's 1,024-token floor) and the prefix passes Anthropic's minimum
const PERSONA = Array.from({ length: 60 }, (_, index) => `Rule ${index + 1}: keep each change small, tested and explained in one sentence.`).join('\n')
const EDITED = `${PERSONA}\nRule 61: answer in English.`

/** One step of the scenario: a turn, and what happens before it. */
export type AgreementStep = { text: string; before?: 'switch-model' | 'edit-persona' | 'evict' }

/** The scenario of issue 32: turns on a warm cache with a deliberate model switch, a persona edit and a server-side eviction between them. */
export const AGREEMENT_STEPS: readonly AgreementStep[] = [
  { text: 'hello' },
  { text: 'go on' },
  { text: 'after the switch', before: 'switch-model' },
  { text: 'go on' },
  { text: 'after the persona edit', before: 'edit-persona' },
  { text: 'go on' },
  { text: 'after the eviction', before: 'evict' },
  { text: 'go on' },
]

/** A running process of the scenario: the real spine, detector and Anthropic adapter against the emulator. */
export interface AgreementProcess {
  ctx: Context
  agent: Agent
  emulator: Awaited<ReturnType<typeof startEmulator>>
  breaks: PromptCacheBreak[]
  /** Warnings the detector logged. */
  warnings: string[]
  /** Runs one step (its event first). */
  play(step: AgreementStep): Promise<void>
  close(): Promise<void>
}

/** Boots the scenario's process in a fresh session folder (the emulator's clock is real: the run takes seconds, far under the TTL). */
export async function startAgreement(): Promise<AgreementProcess> {
  const emulator = await startEmulator(AGREEMENT_MODELS)
  const root = await mkdtemp(join(tmpdir(), 'dsh-bench-agreement-'))
  const priorKey = process.env[KEY_ENV]
  process.env[KEY_ENV] = 'bench-dummy-key'
  const ctx = new Context()
  const warnings: string[] = []
  const breaks: PromptCacheBreak[] = []
  const fibers = [
    await ctx.plugin(AgentSpine, { persist: true, persistenceRoot: root, scripted: false, model: AGREEMENT_MODELS[0], persona: PERSONA }),
    await ctx.plugin(PromptCache),
    await ctx.plugin(AnthropicProvider, {
      baseURL: `${emulator.origin}/anthropic`, apiKeyEnv: KEY_ENV, models: AGREEMENT_MODELS.map((id) => ({ id, provider: 'anthropic' as const })),
    }),
  ]
  ctx.on('prompt-cache/break', (_agent, info) => { breaks.push(info) })
  ctx.logger.exporter({ export: (message) => { if (message.type === 'warn' && message.name === 'prompt-cache') warnings.push(String(message.args[0])) } })
  const agent = await ctx.agentLoop.createAgent({ id: AGENT })
  const problems = emulator.problems
  return {
    ctx, agent, emulator, breaks, warnings,
    async play({ text, before }) {
      if (before === 'switch-model') agent.switchModel(AGREEMENT_MODELS[1])
      else if (before === 'edit-persona') agent.ctx.systemPrompt.section({ name: 'deployment:persona', order: 0, text: EDITED })
      else if (before === 'evict') emulator.evict()
      const result = await agent.prompt(text)
      if (result.reason !== 'done') problems.push(`turn "${text}": ${result.reason} ${result.error ?? ''}`)
    },
    async close() {
      await ctx.agentLoop.removeAgent(AGENT)
      for (const fiber of fibers.reverse()) await fiber.dispose()
      if (priorKey === undefined) delete process.env[KEY_ENV]
      else process.env[KEY_ENV] = priorKey
      await emulator.close()
      await rm(root, { recursive: true, force: true })
    },
  }
}

/**
 * `cache_reason_agreement`: of the breaks both DSH and the provider named a cause for, the share whose causes
 * correspond (target 1.0); beside it how many breaks there were and how many only the provider (the eviction)
 * or only DSH explained, and the emulator's protocol problems.
 */
export async function agreementMetrics(): Promise<{ metrics: Record<string, number>; problems: string[] }> {
  const run = await startAgreement()
  try {
    for (const step of AGREEMENT_STEPS) await run.play(step)
  } finally {
    await run.close()
  }
  const count = (agreement: PromptCacheBreak['agreement']) => run.breaks.filter((item) => item.agreement === agreement).length
  const both = count('agree') + count('disagree')
  return {
    metrics: {
      cache_reason_agreement: both ? round(count('agree') / both, 4) : 0,
      cache_reason_breaks: run.breaks.length,
      cache_reason_both_saw: both,
      cache_reason_provider_only: count('provider-only'),
      cache_reason_dsh_only: count('dsh-only'),
    },
    problems: run.emulator.problems.map((problem) => `agreement: ${problem}`),
  }
}
