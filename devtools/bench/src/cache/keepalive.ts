/**
 * The keepalive scenarios of `bench:cache`: a session through the real spine (`dsh-harness`, as the apps mount
 * it) and the real Anthropic adapter against the emulator's Anthropic route, with the idle time on a virtual
 * clock shared by the keepalive's timers and the emulator's lifetimes. Spend is what the emulated provider
 * billed, every request counted (pings and compactions included), at the model's prices.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Context } from 'cordis'
import AgentSpine from 'dsh-harness'
import AnthropicProvider from 'dsh-llm-anthropic'
import { ManualClock, startEmulator } from 'dsh-llm-testing/emulator'

type LedgerEntry = Awaited<ReturnType<typeof startEmulator>>['ledger'][number]

/** A model dsh-llm lists a price for (Claude Opus 5: $5 input, $6.25 write, $0.50 read, $25 output per million). */
const MODEL = 'claude-opus-5'
const KEY_ENV = 'DSH_BENCH_KEEPALIVE_API_KEY'
const MINUTE = 60_000
const PERSONA = 'You maintain the billing service: read the code before changing it, keep each change small, and say what you changed and why. '.repeat(60)
type Rates = { input: number; output: number; cacheRead: number; cacheWrite: number }

/** Idle gaps (minutes) just under and just over the 5-minute lifetime, between the turns of one session. */
export const NEAR_TTL_GAPS = [4, 6, 4.5, 7, 3, 5.5, 8, 4.8, 6.5, 9, 2, 5.2]
/** Gaps far past the lifetime and the idle bound. */
export const LONG_IDLE_GAPS = [180, 240, 600]
const IDLE_LIMIT_MS = 30 * MINUTE

interface SessionRun {
  ledger: LedgerEntry[]
  pings: { idleMs: number; compacted?: true }[]
  problems: string[]
  rates: Rates
}

/** One session: a turn, then for each gap the clock runs that long and the next turn follows. */
async function runSession(gaps: readonly number[], entry: Record<string, unknown>, turnText: (turn: number) => string = (turn) => `turn ${turn}`): Promise<SessionRun> {
  const clock = new ManualClock()
  const emulator = await startEmulator([MODEL], { now: clock.now })
  const root = await mkdtemp(join(tmpdir(), 'dsh-bench-keepalive-'))
  const previousKey = process.env[KEY_ENV]
  process.env[KEY_ENV] = 'sk-ant-bench-keepalive'
  const ctx = new Context()
  const fibers: { dispose(): unknown }[] = []
  try {
    fibers.push(await ctx.plugin(AgentSpine, { scripted: false, model: MODEL, persona: PERSONA, persistenceRoot: root } as never))
    fibers.push(await ctx.plugin(AnthropicProvider, { baseURL: `${emulator.origin}/anthropic`, apiKeyEnv: KEY_ENV, provider: 'anthropic', models: [{ id: MODEL, ...entry }] } as never))
    const rates = ctx.llm.price(MODEL)
    if (!rates) throw new Error(`bench:cache keepalive: dsh-llm lists no price for ${MODEL}`)
    ctx.agentLoop.keepalive.useClock(clock)
    const agent = await ctx.agentLoop.createAgent({ id: 'keepalive-bench' })
    const problems: string[] = []
    const turn = async (index: number) => {
      const result = await agent.prompt(turnText(index))
      if (result.reason !== 'done') problems.push(`turn ${index} ended ${result.reason}: ${result.error}`)
    }
    await turn(1)
    for (const [index, gap] of gaps.entries()) {
      await clock.advance(gap * MINUTE)
      await turn(index + 2)
    }
    const pings = agent.session.events().filter((event) => event.type === 'keepalive/ping').map((event) => event.data as SessionRun['pings'][number])
    await ctx.agentLoop.removeAgent('keepalive-bench')
    return { ledger: [...emulator.ledger], pings, problems: [...problems, ...emulator.problems], rates }
  } finally {
    for (const fiber of fibers.reverse()) await fiber.dispose()
    await emulator.close()
    if (previousKey === undefined) delete process.env[KEY_ENV]
    else process.env[KEY_ENV] = previousKey
    await rm(root, { recursive: true, force: true })
  }
}

/** What the provider billed for `ledger`, in USD: reads, 5-minute writes, the rest of the prompt, the output. */
export function spend(ledger: readonly LedgerEntry[], rates: Rates): number {
  let usd = 0
  for (const entry of ledger) {
    const plain = Math.max(0, entry.promptTokens - entry.cachedTokens - entry.writtenTokens)
    usd += entry.cachedTokens * rates.cacheRead + entry.writtenTokens * rates.cacheWrite + plain * rates.input + entry.outputTokens * rates.output
  }
  return usd / 1e6
}

const round = (value: number) => Math.round(value * 1000) / 1000

/** The keepalive figures (see the bench README's keys), and the protocol problems seen on the way. */
export async function keepaliveMetrics(): Promise<{ results: Record<string, number>; problems: string[] }> {
  const keepalive = { keepalive: { idleLimitMs: IDLE_LIMIT_MS, compactWhenWarm: false } }
  const none = await runSession(NEAR_TTL_GAPS, {})
  const kept = await runSession(NEAR_TTL_GAPS, keepalive)
  const idle = await runSession(LONG_IDLE_GAPS, keepalive)

  // compact while warm against compacting after expiry: a window the first request fills to 75 %, past 90 % of
  // compactAt 0.8, so the keepalive compacts while warm; the second turn's message (7 % of the window) brings
  // the session past compactAt, so without the keepalive that turn compacts, after the prefix expired
  const first = none.ledger[0]!
  const contextWindow = Math.ceil((first.promptTokens + first.outputTokens) / 0.75)
  const filler = 'please also check the refund path. '
  const longSecond = (turn: number) => (turn === 2 ? `turn 2: ${filler.repeat(Math.ceil(0.07 * contextWindow * 4 / filler.length))}` : `turn ${turn}`)
  const cold = await runSession([6], { contextWindow }, longSecond)
  const warm = await runSession([6], { contextWindow, keepalive: { idleLimitMs: IDLE_LIMIT_MS } }, longSecond)
  const afterGap = (run: SessionRun) => spend(run.ledger.slice(1), run.rates)

  const problems = [none, kept, idle, cold, warm].flatMap((run) => run.problems)
  const compactions = (run: SessionRun) => run.ledger.filter((entry) => entry.compaction).length
  if (compactions(cold) !== 1 || compactions(warm) !== 1) problems.push(`keepalive: expected one compaction each, got ${compactions(cold)} after expiry and ${compactions(warm)} while warm`)
  return {
    problems,
    results: {
      spend_keepalive_over_none: round(spend(kept.ledger, kept.rates) / spend(none.ledger, none.rates)),
      keepalive_pings: kept.pings.length,
      keepalive_pings_long_idle_total: idle.pings.length,
      keepalive_pings_long_idle: idle.pings.filter((ping) => ping.idleMs >= IDLE_LIMIT_MS).length,
      spend_compact_warm_over_cold: round(afterGap(warm) / afterGap(cold)),
    },
  }
}
