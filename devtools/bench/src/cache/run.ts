/**
 * `pnpm bench:cache [-- --json]`: how much of the ideal cached prefix a real DSH session keeps, per
 * configuration, against a loopback prefix-caching provider. Prints a table (or one JSON object) and
 * writes the per-turn chart to devtools/bench/cache-chart.svg. Exits 1 when the emulator saw a protocol
 * problem or a scripted turn went wrong, so the numbers are never read off a broken run.
 */
import { writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { renderChart, type Series } from './chart.ts'
import { CONFIGURATIONS } from './configurations.ts'
import { runConfiguration, type ConfigurationRun } from './conversation.ts'
import { reconstruction } from './reconstruction.ts'
import { writeMetrics } from './writes.ts'
import { breakMetrics, breaks } from './breaks.ts'
import { forkFigures } from './forks.ts'
import { printForks } from './fork-table.ts'
import { keepaliveMetrics } from './keepalive.ts'
import { agreementMetrics } from './agreement.ts'
import { ADDITIONS, LIFETIMES, TURNS, TURNS_PER_LIFETIME } from './script.ts'
import { TARGETS, compactionMetrics, meets, metrics, perTurn, summarize, type Summary } from './summary.ts'

const SEED = 20260706
const CHART = new URL('../../cache-chart.svg', import.meta.url)
const STYLE: Record<string, Pick<Series, 'color' | 'dash'>> = {
  registration_order: { color: '#d62728' },
  canonical: { color: '#1f77b4' },
  tool_order: { color: '#2ca02c', dash: '8 4' },
  deepseek_anthropic_addition_only: { color: '#ff7f0e' },
  deepseek_anthropic_in_history: { color: '#8c564b', dash: '3 3' },
  deepseek_addition_only: { color: '#aec7e8', dash: '5 3' },
  anthropic_no_markers: { color: '#c5b0d5', dash: '1 2' },
  anthropic_breakpoints: { color: '#9edae5' },
  anthropic_addition_only: { color: '#393b79', dash: '7 3' },
  anthropic_in_history: { color: '#637939', dash: '2 2 6 2' },
  openai_prompt_cache_key: { color: '#ffbb78', dash: '4 1' },
  openai_breakpoints: { color: '#ffd92f', dash: '1 1' },
  dashscope_markers: { color: '#98df8a', dash: '2 1' },
  append_addition: { color: '#dbdb8d', dash: '6 3' },
  openai_no_key: { color: '#f7b6d2', dash: '3 1' },
  anthropic_none: { color: '#17becf', dash: '8 2' },
  openai_none: { color: '#ff9896', dash: '2 4' },
  dashscope_none: { color: '#c49c94', dash: '5 5' },
  mcp_registration_order: { color: '#e377c2', dash: '6 2' },
  mcp_canonical: { color: '#17becf', dash: '1 3' },
  mcp_key_shuffle_registered: { color: '#bcbd22', dash: '4 2' },
  mcp_key_shuffle: { color: '#7f7f7f', dash: '2 2' },
  compaction: { color: '#9467bd', dash: '6 2 2 2' },
}

const args = process.argv.slice(2).filter((arg) => arg !== '--')
const json = args.includes('--json')
const onlyAt = args.indexOf('--only')
// --only a,b runs those configurations (and `canonical` and `compaction`, which the derived keys need)
const only = onlyAt >= 0 ? new Set([...(args[onlyAt + 1] ?? '').split(','), 'canonical', 'compaction']) : undefined
// `forks` names the fork figures (src/cache/forks.ts), which run after the configurations
const unknown = [...only ?? []].filter((key) => key !== 'forks' && !CONFIGURATIONS.some((configuration) => configuration.key === key))
if (unknown.length) {
  process.stderr.write(`bench:cache: unknown configuration(s) ${unknown.join(', ')}; known: ${CONFIGURATIONS.map((configuration) => configuration.key).join(', ')}, forks\n`)
  process.exit(2)
}
const started = performance.now()

const runs: { run: ConfigurationRun; summary: Summary }[] = []
for (const configuration of CONFIGURATIONS.filter((candidate) => !only || only.has(candidate.key))) {
  if (!json) process.stderr.write(`bench:cache: ${configuration.key}…\n`)
  const run = await runConfiguration(configuration, SEED)
  runs.push({ run, summary: summarize(run) })
}

if (!json && (!only || only.has('forks'))) process.stderr.write('bench:cache: forks…\n')
const forks = !only || only.has('forks') ? await forkFigures() : undefined

const results: Record<string, number> = {}
for (const { run, summary } of runs) Object.assign(results, metrics(run.configuration.key, summary), breakMetrics(run.configuration.key), writeMetrics(run))
Object.assign(results, forks?.results)
// the provider's verdict beside DSH's: a model switch, a persona edit and a server-side eviction (agreement.ts)
if (!json) process.stderr.write('bench:cache: reason agreement…\n')
const agreement = await agreementMetrics()
Object.assign(results, agreement.metrics)
if (!json) process.stderr.write('bench:cache: keepalive…\n')
const keepalive = await keepaliveMetrics()
Object.assign(results, keepalive.results)
const problems = [
  ...agreement.problems,
  ...keepalive.problems,
  ...runs.flatMap(({ run }) => run.problems.map((problem) => `${run.configuration.key}: ${problem}`)),
  ...forks?.runs.flatMap((run) => run.problems.map((problem) => `forks ${run.key}: ${problem}`)) ?? [],
  ...reconstruction.mismatches,
]
results.cache_reconstructed_requests = reconstruction.checked
results.cache_reconstructed_wire_requests = reconstruction.wireChecked
results.cache_reconstruction_mismatches = reconstruction.mismatches.length
results.cache_requests = runs[0]?.summary.requests ?? 0
results.cache_protocol_problems = problems.length

const reference = runs.find(({ run }) => run.configuration.key === 'canonical')!.run
const compacting = runs.find(({ run }) => run.configuration.key === 'compaction')!.run
Object.assign(results, compactionMetrics(compacting, reference))
const series: Series[] = runs.map(({ run, summary }) => ({
  label: `${run.configuration.key} · ${run.configuration.wire} · ${(summary.share * 100).toFixed(2)} % of ideal`,
  ...STYLE[run.configuration.key]!,
  values: perTurn(run, TURNS.length, (request) => request.cachedTokens),
}))
series.push({
  label: 'ideal · chat-completions',
  color: '#9a9a9a',
  dash: '2 3',
  values: perTurn(reference, TURNS.length, (request) => request.idealTokens),
})
// the chart shows every configuration: a partial run (--only) leaves it as it is
if (!only) await writeFile(CHART, renderChart({
  title: `Cached prompt tokens per turn: ${TURNS.length} turns, ${LIFETIMES} restarts, ${ADDITIONS.length} tools added`,
  yLabel: 'cached tokens (first request of the turn)',
  series,
  restarts: Array.from({ length: LIFETIMES - 1 }, (_, index) => (index + 1) * TURNS_PER_LIFETIME + 1),
  additions: ADDITIONS.map(({ turn, tool }) => ({ turn, label: tool.name })),
}))

if (json) {
  process.stdout.write(JSON.stringify(results) + '\n')
} else {
  const header = ['configuration', 'wire', 'cached', 'ideal', 'share', 'lost@addition', 'lost@restart', 'breaks']
  const widths = [34, 18, 9, 9, 7, 14, 13, 28]
  const row = (cells: (string | number)[]) => cells.map((cell, index) => index < 2 ? String(cell).padEnd(widths[index]!) : String(cell).padStart(widths[index]!)).join(' ')
  console.log(row(header))
  for (const { run, summary } of runs) {
    const { key, wire } = run.configuration
    const reasons = breaks.get(key) ?? []
    const counted = [...new Set(reasons)].map((reason) => `${reason} ${reasons.filter((other) => other === reason).length}`).join(', ')
    console.log(row([key, wire, summary.cached, summary.ideal, summary.share.toFixed(3), summary.lostOnAddition, summary.lostOnRestart, counted || '-']))
  }
  if (forks) {
    console.log()
    printForks(forks.runs)
  }
  console.log()
  for (const key of ['keepalive_pings', 'keepalive_pings_long_idle_total', 'spend_compact_warm_over_cold', 'cache_reason_breaks', 'cache_reason_both_saw', 'cache_reason_dsh_only', 'compactions', 'cache_share_compaction_request', 'cache_share_after_compaction', 'cache_share_first_after_compaction', 'cost_step_after_compaction_vs_without', 'cost_compacting_step_vs_without', 'cache_reconstructed_requests', 'cache_reconstructed_wire_requests', 'cache_reconstruction_mismatches',
    ...Object.keys(results).filter((key) => /^(cache_write|uncached)_tokens_/.test(key))]) {
    if (!TARGETS.some((target) => target.key === key)) console.log(`${key.padEnd(40)} ${String(results[key]).padStart(8)}`)
  }
  for (const target of TARGETS) {
    const value = results[target.key]
    if (value === undefined) continue
    console.log(`${target.key.padEnd(40)} ${String(value).padStart(8)}  (target ${target.check} ${target.bound}: ${meets(value, target) ? 'met' : 'MISSED'})`)
  }
  console.log(`\n${results.cache_requests} requests per configuration; chart: ${fileURLToPath(CHART)}; ${((performance.now() - started) / 1000).toFixed(1)} s`)
}

if (problems.length) {
  process.stderr.write(`bench:cache: ${problems.length} protocol problem(s):\n${problems.map((problem) => `  ${problem}`).join('\n')}\n`)
  process.exitCode = 1
}
