import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Agent } from 'dsh-agent-loop'
import { seeded, shuffle } from '../measure.ts'
import type { Configuration } from './configurations.ts'
import { startEmulator } from 'dsh-llm-testing/emulator'
import { KEY_ENV, MODEL, boot, type Lifetime } from './lifetime.ts'
import { bootMcp, mcpName } from './mcp-lifetime.ts'
import { ADDITIONS, LIFETIMES, TURNS, TURNS_PER_LIFETIME } from './script.ts'
import { ADDED_GROUP_ID, ADDED_TOOLS, TOOL_GROUPS } from './tools.ts'
import { settleWire } from './reconstruction.ts'

/** What the emulator records about one answered request. */
type LedgerEntry = Awaited<ReturnType<typeof startEmulator>>['ledger'][number]

/** Upper bound of the real start delay of each MCP server in one boot (ms). */
const MCP_MAX_DELAY_MS = 200

/** One request of the run, as the emulator accounted for it. */
export interface RequestRecord extends LedgerEntry {
  turn: number
  lifetime: number
  /** The first request after a simulated restart. */
  afterRestart: boolean
}

export interface ConfigurationRun {
  configuration: Configuration
  requests: RequestRecord[]
  /** Protocol problems the emulator found, and anything else that kept the run from going as scripted. */
  problems: string[]
}

/**
 * Plays the scripted session once under `configuration`: ten process lifetimes of three turns each, every
 * lifetime a fresh Context with the real spine, adapter and tool plugins, resuming the persisted session;
 * the sixth plugin's tools arrive at their turns (loaded at the lifetime's boot with `afterReadyMs`, fired then). The emulator accounts for every request.
 */
export async function runConfiguration(configuration: Configuration, seed: number): Promise<ConfigurationRun> {
  const emulator = await startEmulator([MODEL])
  const root = await mkdtemp(join(tmpdir(), 'dsh-bench-cache-'))
  const priorKey = process.env[KEY_ENV]
  process.env[KEY_ENV] = 'bench-dummy-key'
  const random = seeded(seed)
  const requests: RequestRecord[] = []
  const problems = emulator.problems
  try {
    for (let lifetime = 0; lifetime < LIFETIMES; lifetime++) {
      const first = lifetime * TURNS_PER_LIFETIME + 1
      const last = Math.min(TURNS.length, first + TURNS_PER_LIFETIME - 1)
      const mcp = configuration.source === 'mcp'
      const added = mcp ? ADDED_TOOLS : ADDITIONS.filter((addition) => addition.turn < first).map((addition) => addition.tool)
      const groups = added.length ? [...TOOL_GROUPS, { id: ADDED_GROUP_ID, tools: added }] : TOOL_GROUPS
      let life: Lifetime
      if (mcp) {
        const delays = groups.map(() => Math.floor(random() * MCP_MAX_DELAY_MS))
        // a seed per server and start, drawn only here so the other configurations keep their stream
        const seeds = configuration.shuffleKeys ? groups.map(() => Math.floor(random() * 2 ** 32)) : undefined
        life = await bootMcp(configuration, emulator.origin, root, groups, delays, seeds)
      } else {
        const order = shuffle(groups.flatMap((group) => group.tools.map((tool) => tool.name)), random)
        const later = ADDITIONS.filter((addition) => addition.turn >= first && addition.turn <= last).map((addition) => addition.tool)
        life = await boot(configuration, emulator.origin, root, groups, order, later)
        if (life.registered.join() !== order.join()) {
          problems.push(`lifetime ${lifetime}: tools registered as ${life.registered.join(', ')}, not in the shuffled order`)
        }
      }
      for (let turn = first; turn <= last; turn++) {
        const addition = mcp ? undefined : ADDITIONS.find((candidate) => candidate.turn === turn)
        if (addition) await life.arrive(addition.tool.name)
        const start = emulator.ledger.length
        const text = mcp ? TURNS[turn - 1]!.replace(/^\/call (\S+)/, (_, name: string) => `/call ${mcpName(groups, name)}`) : TURNS[turn - 1]!
        const reported = await playTurn(life.agent, turn, text, problems)
        settleWire(emulator.received)
        const entries = emulator.ledger.slice(start)
        const sent = entries.map((entry) => entry.cachedTokens)
        if (sent.join() !== reported.join()) {
          problems.push(`turn ${turn}: the adapter reported cached tokens [${reported}] but the emulator sent [${sent}]`)
        }
        entries.forEach((entry, index) => {
          requests.push({ ...entry, turn, lifetime, afterRestart: lifetime > 0 && turn === first && index === 0 })
        })
      }
      await life.stop()
    }
  } finally {
    if (priorKey === undefined) delete process.env[KEY_ENV]
    else process.env[KEY_ENV] = priorKey
    await emulator.close()
    await rm(root, { recursive: true, force: true })
  }
  return { configuration, requests, problems }
}

/** Runs one scripted turn; returns the cached tokens the adapter reported for each of its requests. */
async function playTurn(agent: Agent, turn: number, text: string, problems: string[]): Promise<number[]> {
  const reported: number[] = []
  const result = await agent.prompt(text, {
    onUpdate(update) {
      if (update.type === 'usage') reported.push(update.usage.cacheReadTokens)
      // A compaction request is answered like any other; its usage comes with the compaction update.
      if (update.type === 'compaction' && !update.error) reported.push(update.usage?.cacheReadTokens ?? 0)
      if (update.type === 'compaction' && update.error) problems.push(`turn ${turn}: compaction failed: ${update.error}`)
      if (update.type === 'tool-result' && update.isError) problems.push(`turn ${turn}: tool ${update.name} failed: ${update.output}`)
    },
  })
  if (result.reason !== 'done') problems.push(`turn ${turn} ended with reason ${result.reason}: ${result.error}`)
  return reported
}
