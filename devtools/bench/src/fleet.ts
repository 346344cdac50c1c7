import { mkdtemp, rm } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startTestCluster, throwawaySchema } from 'dsh-session-postgres/testing'
import { type FleetProcess, startProcess, writeApp } from './fleet/app.ts'
import { countBalanced, type LoggedEvent, loggedTurnTimes, modelTimes } from './fleet/logs.ts'
import { fleetOptions, type FleetOptions } from './fleet/options.ts'
import { pgStats, type PgStats, storedLogs } from './fleet/pg-stats.ts'
import { quantile, slope } from './fleet/stats.ts'
import { round, seeded } from './measure.ts'
import { appendTurnRatio } from './session-postgres.ts'

/** A throwaway PostgreSQL cluster, as `startTestCluster` starts it. */
type TestCluster = NonNullable<Awaited<ReturnType<typeof startTestCluster>>>

/** Upper bounds for the keys of this module. */
export const targets = { fleet_turn_overhead_p99_over_scripted: 1.5, fleet_rss_per_session_mb: 2, pg_append_turn_over_jsonl: 2 }

const MB = 1024 * 1024
/** How long the restart phase goes on once the server is back, before every session is asked for one more turn. */
const SETTLE_MS = 3000

type Phase = 'steady' | 'restart'
interface Turn { process: FleetProcess; session: string; index: number; phase: Phase; start: number; ms: number; error?: string }
interface Live { process: FleetProcess; session: string }

const began = performance.now()
const progress = (line: string) => process.stderr.write(`bench fleet: ${((performance.now() - began) / 1000).toFixed(0)} s: ${line}\n`)

/**
 * Two real dsh-acp-demo processes on one throwaway PostgreSQL cluster (fsync on), each driven by the ACP
 * SDK's client over its stdio, hold `--sessions` live sessions between them; every session sends turns to
 * the scripted model (`--model-ms` per answer) with a pause of about `--interval-ms` for `--minutes`; then
 * the server restarts under the turns in flight, and every session is asked for one more turn. See the
 * README's fleet section for what each key means.
 */
export async function run(args: string[]): Promise<Record<string, number | string | null>> {
  const options = fleetOptions(args)
  const cluster = await startTestCluster({ fsync: true, maxConnections: options.sessions + 100 }).catch((error: Error) => error)
  if (!cluster) return { fleet_note: 'skipped: no PostgreSQL server binaries and no DSH_TEST_PG_URL' }
  if (cluster instanceof Error) return { fleet_note: `skipped: the throwaway cluster failed to start: ${cluster.message.split('\n')[0]}` }
  const dir = await mkdtemp(join(tmpdir(), 'dsh-bench-fleet-'))
  const { schema, drop } = throwawaySchema(cluster.url)
  const processes: FleetProcess[] = []
  try {
    progress('pg_append_turn_over_jsonl…')
    const append = await appendTurnRatio(cluster.url)
    return { ...append, ...await fleet(cluster, dir, schema, options, processes) }
  } finally {
    progress('stopping…')
    await Promise.all(processes.map((proc) => proc.stop()))
    await drop().catch(() => {})
    await cluster.stop()
    await rm(dir, { recursive: true, force: true })
    progress('done')
  }
}

async function fleet(cluster: TestCluster, dir: string, schema: string, options: FleetOptions, processes: FleetProcess[]): Promise<Record<string, number | string | null>> {
  const perProcess = options.sessions / 2
  const steadyMs = options.minutes * 60_000
  // enough answers for the fastest pace a session can keep, plus the warm-up, the restart phase and the last turn
  const answers = perProcess * (Math.ceil((steadyMs + SETTLE_MS + 60_000) / (options.modelMs + options.intervalMs * 0.5)) + 10) + 10
  for (const name of ['a', 'b']) {
    const file = await writeApp(dir, name, schema, options.modelMs, answers)
    processes.push(await startProcess(name, file, cluster.url))
  }

  // warm up each process on one session (code loaded and compiled), close it: the 0-session RSS
  for (const proc of processes) {
    const id = await proc.newSession()
    for (let i = 0; i < 5; i++) await proc.prompt(id, `warm-up ${i}`)
    await proc.close(id)
  }
  await sleep(1000)
  const rss0 = await totalRss(processes)

  progress(`opening ${options.sessions} sessions…`)
  const live: Live[] = []
  for (const proc of processes) {
    const ids = await inBatches(Array.from({ length: perProcess }), 10, () => proc.newSession())
    live.push(...ids.map((session) => ({ process: proc, session })))
  }
  const rssOpen = await totalRss(processes)

  progress(`${options.minutes} min of turns (${options.modelMs} ms model, ~${options.intervalMs} ms apart)…`)
  const turns: Turn[] = []
  let phase: Phase = 'steady'
  let stopped = false
  const random = seeded(36)
  const loops = live.map(({ process: proc, session }) => (async () => {
    let index = 0
    await sleep(random() * options.intervalMs)
    while (!stopped) {
      const turn: Turn = { process: proc, session, index: ++index, phase, start: performance.now(), ms: 0 }
      try {
        await proc.prompt(session, `turn ${index}`)
      } catch (error) {
        turn.error = (error as Error).message
      }
      turn.ms = performance.now() - turn.start
      turns.push(turn)
      await sleep(options.intervalMs * (0.5 + random()))
    }
  })())

  const before = await pgStats(cluster.url, schema)
  const cpuBefore = { apps: await totalCpu(processes), bench: process.cpuUsage() }
  const rssSamples: { x: number; y: number }[] = []
  const steadyStart = performance.now()
  while (performance.now() - steadyStart < steadyMs) {
    await sleep(Math.min(5000, steadyMs - (performance.now() - steadyStart)))
    rssSamples.push({ x: (performance.now() - steadyStart) / 60_000, y: await totalRss(processes) / MB })
  }
  await sleep(1100) // the statistics collector flushes a backend's counters about once a second
  const after = await pgStats(cluster.url, schema)
  const rssEnd = await totalRss(processes)
  const wall = (after.at - before.at) / 1000
  const bench = process.cpuUsage(cpuBefore.bench)
  const appCpu = await totalCpu(processes) - cpuBefore.apps
  const steadyTurns = turns.filter((turn) => turn.phase === 'steady').length
  const cpu = {
    // CPU seconds per wall second: 1 is one core busy the whole phase
    fleet_app_cpu_per_process: round(appCpu / processes.length / wall, 2),
    // what the two processes spent per turn served (ACP, the loop, the session writes, the scripted model)
    fleet_app_cpu_ms_per_turn: round(appCpu * 1000 / Math.max(1, steadyTurns), 2),
    fleet_client_cpu: round((bench.user + bench.system) / 1e6 / wall, 2),
    // the machine's 1-minute load average at the end of the steady phase: the figures above move with it
    fleet_load_avg: round(loadavg()[0]!, 1),
  }

  let restart: Record<string, number | string | null> = { fleet_restart_note: 'skipped: the server was given by DSH_TEST_PG_URL' }
  if (cluster.restart) {
    progress('restarting PostgreSQL under the turns in flight…')
    phase = 'restart'
    const restartStart = performance.now()
    await cluster.restart()
    const restartEnd = performance.now()
    const restartMs = restartEnd - restartStart
    await sleep(SETTLE_MS)
    stopped = true
    await Promise.all(loops)
    progress('one more turn per session, then the logs…')
    // the turns in flight while the server went down and came back: begun before it was up again, ended after the restart began
    const cut = turns.filter((turn) => turn.start < restartEnd && turn.start + turn.ms > restartStart)
    // every session once more, now that the server is back
    const served = await inBatches(live, 50, async ({ process: proc, session }) => proc.prompt(session, 'after the restart').then(() => true, () => false))
    const logs = liveLogs(live, await storedLogs(cluster.url, schema))
    const balance = countBalanced(logs)
    restart = {
      fleet_restart_ms: Math.round(restartMs),
      fleet_restart_cut_turns: cut.length,
      fleet_restart_cut_turns_failed: cut.filter((turn) => turn.error !== undefined).length,
      fleet_restart_turns_failed: turns.filter((turn) => turn.phase === 'restart' && turn.error !== undefined).length,
      fleet_restart_logs_balanced: balance.balanced,
      fleet_restart_error_turns_logged: balance.errorTurns,
      fleet_restart_sessions_serving: served.filter(Boolean).length,
      fleet_sessions: options.sessions,
      // one failure's message as the client read it (the first of the restart phase), cut to 240 characters
      fleet_restart_error_example: turns.find((turn) => turn.phase === 'restart' && turn.error !== undefined)?.error?.slice(0, 240) ?? null,
      ...Object.keys(balance.problems).length ? { fleet_restart_unbalanced_example: Object.entries(balance.problems)[0]!.join(': ') } : {},
    }
    return { ...steadyFigures(turns, logs, options, before, after, steadyMs, rss0, rssOpen, rssEnd, rssSamples), ...cpu, ...restart }
  }
  stopped = true
  await Promise.all(loops)
  const logs = liveLogs(live, await storedLogs(cluster.url, schema))
  return { ...steadyFigures(turns, logs, options, before, after, steadyMs, rss0, rssOpen, rssEnd, rssSamples), ...cpu, ...restart }
}

function steadyFigures(
  turns: Turn[], logs: Map<string, LoggedEvent[]>, options: FleetOptions, before: PgStats, after: PgStats, steadyMs: number,
  rss0: number, rssOpen: number, rssEnd: number, rssSamples: { x: number; y: number }[],
): Record<string, number | string | null> {
  const steady = turns.filter((turn) => turn.phase === 'steady')
  const ok = steady.filter((turn) => turn.error === undefined)
  // each steady turn joined with the model's own time in its log (turn numbers follow the session's prompts)
  const joined: { turn: number; model: number; logged: number }[] = []
  const models = new Map([...logs].map(([id, events]) => [id, modelTimes(events)]))
  const spans = new Map([...logs].map(([id, events]) => [id, loggedTurnTimes(events)]))
  for (const turn of ok) {
    const model = models.get(turn.session)?.get(turn.index)
    if (model !== undefined && model > 0) joined.push({ turn: turn.ms, model, logged: spans.get(turn.session)?.get(turn.index) ?? Number.NaN })
  }
  const ratios = joined.map(({ turn, model }) => turn / model)
  const overheads = joined.map(({ turn, model }) => turn - model)
  const seconds = (after.at - before.at) / 1000
  const perSecond = (key: keyof PgStats) => round((after[key] - before[key]) / seconds, 1)
  return {
    fleet_turn_overhead_p99_over_scripted: round(quantile(ratios, 0.99), 2),
    fleet_turn_overhead_p50_over_scripted: round(quantile(ratios, 0.5), 2),
    fleet_turn_ms_p50: round(quantile(joined.map((j) => j.turn), 0.5), 1),
    fleet_turn_ms_p99: round(quantile(joined.map((j) => j.turn), 0.99), 1),
    fleet_scripted_ms_p50: round(quantile(joined.map((j) => j.model), 0.5), 1),
    fleet_scripted_ms_p99: round(quantile(joined.map((j) => j.model), 0.99), 1),
    fleet_logged_turn_ms_p50: round(quantile(joined.map((j) => j.logged), 0.5), 1),
    fleet_logged_turn_ms_p99: round(quantile(joined.map((j) => j.logged), 0.99), 1),
    fleet_dsh_ms_p50: round(quantile(overheads, 0.5), 1),
    fleet_dsh_ms_p99: round(quantile(overheads, 0.99), 1),
    fleet_turns: steady.length,
    fleet_turns_failed: steady.length - ok.length,
    ...steady.length > ok.length ? { fleet_turn_error_example: steady.find((turn) => turn.error !== undefined)!.error!.slice(0, 240) } : {},
    fleet_turns_per_s: round(steady.length / (steadyMs / 1000), 1),
    fleet_rss_per_session_mb: round((rssEnd - rss0) / options.sessions / MB, 3),
    fleet_rss_per_open_session_mb: round((rssOpen - rss0) / options.sessions / MB, 3),
    fleet_rss_mb_start: round(rss0 / MB, 1),
    fleet_rss_mb_end: round(rssEnd / MB, 1),
    fleet_rss_growth_mb_per_min: round(slope(rssSamples), 2),
    // RSS added over the steady phase per turn served: a session keeps its whole log in memory
    fleet_rss_kb_per_turn: round((rssEnd - rssOpen) / Math.max(1, steady.length) / 1024, 2),
    fleet_appends_per_s: perSecond('events_inserted'),
    fleet_pg_commits_per_s: perSecond('xact_commit'),
    fleet_pg_rollbacks: after.xact_rollback - before.xact_rollback,
    fleet_pg_wal_kb_per_s: round((after.wal_bytes - before.wal_bytes) / 1024 / seconds, 1),
    fleet_pg_wal_records_per_s: perSecond('wal_records'),
    fleet_pg_cache_hit_share: round((after.blks_hit - before.blks_hit) / Math.max(1, after.blks_hit - before.blks_hit + after.blks_read - before.blks_read), 4),
  }
}

/** The logs of the live sessions (the warm-up sessions left out); a session that stored nothing has an empty log. */
function liveLogs(live: Live[], stored: Map<string, LoggedEvent[]>): Map<string, LoggedEvent[]> {
  return new Map(live.map(({ session }) => [session, stored.get(session) ?? []]))
}

async function totalCpu(processes: FleetProcess[]): Promise<number> {
  let sum = 0
  for (const proc of processes) sum += await proc.cpuSeconds()
  return sum
}

async function totalRss(processes: FleetProcess[]): Promise<number> {
  let sum = 0
  for (const proc of processes) sum += await proc.rss()
  return sum
}

/** Maps `items` through `fn`, at most `width` at a time, keeping their order. */
async function inBatches<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i += width) out.push(...await Promise.all(items.slice(i, i + width).map(fn)))
  return out
}
