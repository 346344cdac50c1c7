import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import type { Agent } from 'dsh-agent-loop'
import { startEmulator, type LedgerEntry } from 'dsh-llm-testing/emulator'
import { round } from '../measure.ts'
import { CONFIGURATIONS, type Configuration } from './configurations.ts'
import { KEY_ENV, MODEL, SESSION, boot } from './lifetime.ts'
import { reconstruction, settleWire } from './reconstruction.ts'
import { TURNS } from './script.ts'
import { TOOL_GROUPS } from './tools.ts'

/** The turns the parent plays before it forks: a question, two tool calls. */
const OPENING = TURNS.slice(0, 3)
/** What the children are asked (one `agent` tool call each, as the model would make it). */
export const FORK_CALL = { instruction: 'List the files we looked at so far, one per line.', description: 'files so far' }
export const FRESH_CALL = { mode: 'fresh', instruction: 'Review src/services/orders.ts on its own.', description: 'fresh review' }
export const SIDE_QUESTION = 'Which port is the dev server on?'

/** The provider routes each fork figure is measured on: each profile's configuration of the main run. */
export const FORK_ROUTES: Record<string, string> = {
  generic: 'canonical',
  openai: 'openai_prompt_cache_key',
  deepseek: 'deepseek_addition_only',
  anthropic: 'anthropic_breakpoints',
  dashscope: 'dashscope_markers',
}

/** The same scenario on an emulated llama.cpp server: one slot and no affinity, then two slots and `id_slot`. */
export const LOCAL_ROUTES: Configuration[] = [
  { key: 'llamacpp_one_slot', label: 'llama.cpp, -np 1, no affinity', wire: 'chat-completions', route: '/llamacpp' },
  { key: 'llamacpp_two_slots', label: 'llama.cpp, -np 2, affinity id_slot', wire: 'chat-completions', route: '/llamacpp', entry: { affinity: { field: 'id_slot', slots: 2 } } },
]
const SLOTS: Record<string, number> = { llamacpp_one_slot: 1, llamacpp_two_slots: 2 }

/** Cached ÷ prompt tokens of one request, as the provider reported it. */
const share = (entry: LedgerEntry | undefined) => (entry && entry.promptTokens ? round(entry.cachedTokens / entry.promptTokens, 4) : 0)

/** The figures of one route: each share of one request (see the README's "Forks"). */
export interface ForkRun {
  key: string
  forkFirst: number
  freshFirst: number
  parentAfterFork: number
  parentAfterFresh: number
  side: number
  parentAfterSide: number
  problems: string[]
}

/** What the scenario needs of the fork primitive (`dsh-agent-loop`) and of the harness's side door. */
interface Forking {
  fork?(options: { mode: string; instruction: string; description: string }): Promise<{ child: string; text: string; reason: string }>
}
interface SideDoor {
  side?(agentId: string, question: string, options?: object): Promise<unknown>
}

/**
 * One route's fork figures, through the services the apps mount (the spine with its `agent` tool, the
 * adapter, the detector) against a fresh emulator: the parent plays `OPENING`, then in three turns calls the
 * `agent` tool in mode `fork`, then in mode `fresh`, then asks a side question (`ctx.harness.side`, else
 * `agent.fork({ mode: 'side' })`), and plays one more plain turn. Each figure is one request's cached share.
 */
export async function runForkRoute(configuration: Configuration, key: string, slots?: number): Promise<ForkRun> {
  const emulator = await startEmulator([MODEL], slots === undefined ? {} : { slots })
  const root = await mkdtemp(join(tmpdir(), 'dsh-bench-forks-'))
  const priorKey = process.env[KEY_ENV]
  process.env[KEY_ENV] = 'bench-dummy-key'
  const problems = emulator.problems
  const run: ForkRun = { key, forkFirst: 0, freshFirst: 0, parentAfterFork: 0, parentAfterFresh: 0, side: 0, parentAfterSide: 0, problems }
  const names = TOOL_GROUPS.flatMap((group) => group.tools.map((tool) => tool.name))
  const life = await boot({ ...configuration, key: `fork_${key}` }, emulator.origin, root, TOOL_GROUPS, names)
  const local = configuration.entry?.affinity !== undefined
  try {
    const turn = async (text: string) => {
      const start = emulator.ledger.length
      const result = await life.agent.prompt(text)
      if (result.reason !== 'done') problems.push(`${key}: "${text.slice(0, 40)}" ended with ${result.reason}: ${result.error}`)
      // the rebuilt requests of the parent against the bytes the provider got (lineage is not in the log: skip on affinity routes)
      if (local) reconstruction.pending.splice(0)
      else settleWire(emulator.received)
      return emulator.ledger.slice(start)
    }
    for (const text of OPENING) await turn(text)
    // the parent's request calling the tool, the child's requests, the parent's next request
    const forked = await turn(`/call agent ${JSON.stringify(FORK_CALL)}`)
    run.forkFirst = share(forked[1])
    run.parentAfterFork = share(forked.at(-1))
    const fresh = await turn(`/call agent ${JSON.stringify(FRESH_CALL)}`)
    run.freshFirst = share(fresh[1])
    run.parentAfterFresh = share(fresh.at(-1))
    const start = emulator.ledger.length
    await askSide(life.ctx, life.agent, problems)
    run.side = share(emulator.ledger[start])
    const after = await turn('Thanks. Back to the pagination bug.')
    run.parentAfterSide = share(after[0])
    if (forked.length < 3 || fresh.length < 3) problems.push(`${key}: the agent tool ran no child (requests per fork turn: ${forked.length}, ${fresh.length})`)
  } finally {
    await life.stop()
    if (priorKey === undefined) delete process.env[KEY_ENV]
    else process.env[KEY_ENV] = priorKey
    await emulator.close()
    await rm(root, { recursive: true, force: true })
  }
  return run
}

/** The side question, through the harness's door when it offers one, else through the fork primitive. */
async function askSide(ctx: Context, agent: Agent, problems: string[]) {
  const harness = ctx.get('harness', false) as SideDoor | undefined
  if (harness?.side) return void await harness.side(SESSION, SIDE_QUESTION)
  const forking = agent as unknown as Forking
  if (!forking.fork) return void problems.push('neither ctx.harness.side nor agent.fork exists: no side question was asked')
  const result = await forking.fork({ mode: 'side', instruction: SIDE_QUESTION, description: 'side question' })
  if (result.reason !== 'done') problems.push(`the side question ended with ${result.reason}`)
}

/** Every route's run, then the keys: per route, and the headline key the least of the provider routes. */
export async function forkFigures(): Promise<{ runs: ForkRun[]; results: Record<string, number> }> {
  const runs: ForkRun[] = []
  for (const [profile, key] of Object.entries(FORK_ROUTES)) {
    runs.push(await runForkRoute(CONFIGURATIONS.find((configuration) => configuration.key === key)!, profile))
  }
  for (const configuration of LOCAL_ROUTES) runs.push(await runForkRoute(configuration, configuration.key, SLOTS[configuration.key]))
  const results: Record<string, number> = {}
  for (const run of runs) {
    Object.assign(results, {
      [`cache_share_fork_first_request_${run.key}`]: run.forkFirst,
      [`cache_share_fresh_first_request_${run.key}`]: run.freshFirst,
      [`cache_share_parent_after_fork_${run.key}`]: run.parentAfterFork,
      [`cache_share_parent_after_fresh_${run.key}`]: run.parentAfterFresh,
      [`cache_share_side_question_${run.key}`]: run.side,
      [`cache_share_parent_after_side_${run.key}`]: run.parentAfterSide,
    })
  }
  const providers = runs.filter((run) => run.key in FORK_ROUTES)
  const least = (pick: (run: ForkRun) => number) => Math.min(...providers.map(pick))
  results.cache_share_fork_first_request = least((run) => run.forkFirst)
  results.cache_share_parent_after_fork = least((run) => run.parentAfterFork)
  results.cache_share_side_question = least((run) => run.side)
  return { runs, results }
}
