import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import type { Agent } from 'dsh-agent-loop'
import type { GenerateOptions } from 'dsh-llm'
import type { Usage } from 'dsh-core'
import { startEmulator } from 'dsh-llm-testing/emulator'
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

/**
 * The same scenario on an emulated llama.cpp server: one slot and no affinity, two slots and `id_slot`, and two
 * slots left to the server's own pick (the slot sharing the most with the request).
 */
export const LOCAL_ROUTES: Configuration[] = [
  { key: 'llamacpp_one_slot', label: 'llama.cpp, -np 1, no affinity', wire: 'chat-completions', route: '/llamacpp' },
  { key: 'llamacpp_two_slots', label: 'llama.cpp, -np 2, affinity id_slot', wire: 'chat-completions', route: '/llamacpp', entry: { affinity: { field: 'id_slot', slots: 2 } } },
  { key: 'llamacpp_two_slots_no_affinity', label: 'llama.cpp, -np 2, no affinity', wire: 'chat-completions', route: '/llamacpp' },
]
const SLOTS: Record<string, number> = { llamacpp_one_slot: 1, llamacpp_two_slots: 2, llamacpp_two_slots_no_affinity: 2 }

/** One answered request: whose it was (its session line's id when it has one, else its last user text) and its usage. */
interface Answered {
  usage: Usage
  options: GenerateOptions
}

/** Cached ÷ prompt tokens of one request, as the adapter reported the provider's usage. */
const share = (answered: Answered | undefined) => {
  const usage = answered?.usage
  return usage && usage.inputTokens ? round(usage.cacheReadTokens / usage.inputTokens, 4) : 0
}

/**
 * A real llama.cpp server for the local routes instead of the emulated one: `DSH_BENCH_LLAMA_URL` (its
 * `/v1` base URL) and `DSH_BENCH_LLAMA_SLOTS` (the server's `-np`; 1 runs without affinity, 2 or more with
 * `id_slot`). Unset: the emulated server, one slot then two.
 */
export function realLlama(env = process.env): Configuration | undefined {
  const url = env.DSH_BENCH_LLAMA_URL
  if (!url) return undefined
  const slots = Number(env.DSH_BENCH_LLAMA_SLOTS ?? '1')
  if (!Number.isSafeInteger(slots) || slots < 1) throw new Error(`DSH_BENCH_LLAMA_SLOTS must be the server's -np, a whole number >= 1, got ${JSON.stringify(env.DSH_BENCH_LLAMA_SLOTS)}`)
  return {
    key: `llamacpp_real_${slots}_slot${slots > 1 ? 's' : ''}`,
    label: `a real llama.cpp server at ${url}, -np ${slots}`,
    wire: 'chat-completions',
    adapter: { baseURL: url },
    ...slots > 1 && { entry: { affinity: { field: 'id_slot', slots } } },
  }
}

/** The figures of one route: each share of one request (see the README's "Forks"). */
export interface ForkRun {
  key: string
  forkFirst: number
  freshFirst: number
  /** Cached tokens of the two children's first requests: a fork reads the parent's history, a fresh child only what it shares of the front. */
  forkFirstTokens: number
  freshFirstTokens: number
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
  const run: ForkRun = { key, forkFirst: 0, freshFirst: 0, forkFirstTokens: 0, freshFirstTokens: 0, parentAfterFork: 0, parentAfterFresh: 0, side: 0, parentAfterSide: 0, problems }
  const names = TOOL_GROUPS.flatMap((group) => group.tools.map((tool) => tool.name))
  const life = await boot({ ...configuration, key: `fork_${key}` }, emulator.origin, root, TOOL_GROUPS, names)
  // the harness offers the agent tool by default; a spine that does not yet, offers it here (the loop's own tool)
  if (!life.ctx.tools.has('agent')) life.ctx.agentLoop.offerAgentTool()
  // every answered request of the process, parent's and children's, in the order they completed
  const answered: Answered[] = []
  life.ctx.on('llm/response', (options, usage) => { answered.push({ options, usage }) })
  const emulated = configuration.adapter?.baseURL === undefined
  const local = configuration.entry?.affinity !== undefined || !emulated
  try {
    const turn = async (text: string) => {
      const start = answered.length
      const result = await life.agent.prompt(text)
      if (result.reason !== 'done') problems.push(`${key}: "${text.slice(0, 40)}" ended with ${result.reason}: ${result.error}`)
      // the rebuilt requests of the parent against the bytes the provider got (lineage is not in the log: skip on affinity routes)
      if (local) reconstruction.pending.splice(0)
      else settleWire(emulator.received)
      return answered.slice(start)
    }
    for (const text of OPENING) await turn(text)
    if (emulated) {
      // the emulated model calls the agent tool when asked to: the parent's request calling it, the child's
      // requests, then the parent's next request with the child's text as the tool result
      const forked = await turn(`/call agent ${JSON.stringify(FORK_CALL)}`)
      run.forkFirst = share(forked[1])
      run.forkFirstTokens = forked[1]?.usage.cacheReadTokens ?? 0
      run.parentAfterFork = share(forked.at(-1))
      const fresh = await turn(`/call agent ${JSON.stringify(FRESH_CALL)}`)
      run.freshFirst = share(fresh[1])
      run.freshFirstTokens = fresh[1]?.usage.cacheReadTokens ?? 0
      run.parentAfterFresh = share(fresh.at(-1))
      if (forked.length < 3 || fresh.length < 3) problems.push(`${key}: the agent tool ran no child (requests per fork turn: ${forked.length}, ${fresh.length})`)
    } else {
      // a real model decides its own tool calls: the fork primitive directly, then the parent's next turn
      const child = async (call: object) => {
        const start = answered.length
        await forkOf(life.agent, problems)?.(call)
        return answered.slice(start)
      }
      const forked = (await child({ mode: 'fork', ...FORK_CALL }))[0]
      run.forkFirst = share(forked)
      run.forkFirstTokens = forked?.usage.cacheReadTokens ?? 0
      run.parentAfterFork = share((await turn('Go on.'))[0])
      // the primitive takes a fresh child's own persona (the agent tool does not)
      const fresh = (await child({ ...FRESH_CALL, persona: 'You review one file at a time, briefly.' }))[0]
      run.freshFirst = share(fresh)
      run.freshFirstTokens = fresh?.usage.cacheReadTokens ?? 0
      run.parentAfterFresh = share((await turn('And then?'))[0])
    }
    const start = answered.length
    await askSide(life.ctx, life.agent, problems)
    run.side = share(answered[start])
    const after = await turn('Thanks. Back to the pagination bug.')
    run.parentAfterSide = share(after[0])
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
  await forkOf(agent, problems)?.({ mode: 'side', instruction: SIDE_QUESTION, description: 'side question' })
}

/** `agent.fork` (the primitive of `dsh-agent-loop`), reporting a child that did not end `done`; undefined without it. */
function forkOf(agent: Agent, problems: string[]) {
  const forking = agent as unknown as Forking
  if (!forking.fork) return void problems.push('agent.fork does not exist: no child was run')
  return async (options: object) => {
    const result = await forking.fork!(options as Parameters<NonNullable<Forking['fork']>>[0])
    if (result.reason !== 'done') problems.push(`the ${(options as { mode: string }).mode} child ${result.child} ended with ${result.reason}`)
  }
}

/** Every route's run, then the keys: per route, and the headline key the least of the provider routes. */
export async function forkFigures(): Promise<{ runs: ForkRun[]; results: Record<string, number> }> {
  const runs: ForkRun[] = []
  const real = realLlama()
  if (real) {
    // a real engine: its figures alone (the emulated routes are measured without the variable)
    runs.push(await runForkRoute(real, real.key))
    return { runs, results: keysOf(runs) }
  }
  for (const [profile, key] of Object.entries(FORK_ROUTES)) {
    runs.push(await runForkRoute(CONFIGURATIONS.find((configuration) => configuration.key === key)!, profile))
  }
  for (const configuration of LOCAL_ROUTES) runs.push(await runForkRoute(configuration, configuration.key, SLOTS[configuration.key]))
  const results = keysOf(runs)
  const providers = runs.filter((run) => run.key in FORK_ROUTES)
  const least = (pick: (run: ForkRun) => number) => Math.min(...providers.map(pick))
  results.cache_share_fork_first_request = least((run) => run.forkFirst)
  results.cache_share_parent_after_fork = least((run) => run.parentAfterFork)
  results.cache_share_side_question = least((run) => run.side)
  return { runs, results }
}

/** The keys of each route's run. */
function keysOf(runs: readonly ForkRun[]): Record<string, number> {
  const results: Record<string, number> = {}
  for (const run of runs) {
    Object.assign(results, {
      [`cache_share_fork_first_request_${run.key}`]: run.forkFirst,
      [`cache_share_fresh_first_request_${run.key}`]: run.freshFirst,
      [`cache_read_tokens_fork_first_request_${run.key}`]: run.forkFirstTokens,
      [`cache_read_tokens_fresh_first_request_${run.key}`]: run.freshFirstTokens,
      [`cache_share_parent_after_fork_${run.key}`]: run.parentAfterFork,
      [`cache_share_parent_after_fresh_${run.key}`]: run.parentAfterFresh,
      [`cache_share_side_question_${run.key}`]: run.side,
      [`cache_share_parent_after_side_${run.key}`]: run.parentAfterSide,
    })
  }
  return results
}
