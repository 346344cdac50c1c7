import { round } from '../measure.ts'
import type { ConfigurationRun, RequestRecord } from './conversation.ts'

/** The figures of one configuration's run. */
export interface Summary {
  cached: number
  ideal: number
  /** Σ cached ÷ Σ ideal over every request of the run. */
  share: number
  /** Σ (ideal − cached) over the requests that declare a tool the previous request did not. */
  lostOnAddition: number
  /** Σ (ideal − cached) over the first request of every process lifetime but the first. */
  lostOnRestart: number
  requests: number
}

const lost = (requests: RequestRecord[]) => requests.reduce((sum, request) => sum + request.idealTokens - request.cachedTokens, 0)

export function summarize(run: ConfigurationRun): Summary {
  const { requests } = run
  const cached = requests.reduce((sum, request) => sum + request.cachedTokens, 0)
  const ideal = requests.reduce((sum, request) => sum + request.idealTokens, 0)
  return {
    cached,
    ideal,
    share: ideal ? round(cached / ideal, 4) : 0,
    lostOnAddition: lost(requests.filter((request) => request.added.length > 0)),
    lostOnRestart: lost(requests.filter((request) => request.afterRestart)),
    requests: requests.length,
  }
}

/** A value per turn from the first request of that turn: the one a restart or an addition lands on. */
export function perTurn(run: ConfigurationRun, turns: number, pick: (request: RequestRecord) => number): number[] {
  return Array.from({ length: turns }, (_, index) => {
    const first = run.requests.find((request) => request.turn === index + 1)
    return first ? pick(first) : 0
  })
}

/** The JSON keys of one configuration. */
export function metrics(key: string, summary: Summary): Record<string, number> {
  return {
    [`cache_share_${key}`]: summary.share,
    [`cache_lost_on_addition_${key}`]: summary.lostOnAddition,
    [`cache_lost_on_restart_${key}`]: summary.lostOnRestart,
    [`cached_tokens_${key}`]: summary.cached,
    [`ideal_tokens_${key}`]: summary.ideal,
  }
}

/** Cost of a request in uncached-token units: a cached prompt token costs a tenth of an uncached one. */
const CACHED_PRICE = 0.1
const cost = (request: RequestRecord) => request.promptTokens - request.cachedTokens + CACHED_PRICE * request.cachedTokens
const cachedShare = (requests: RequestRecord[]) => {
  const prompt = requests.reduce((sum, request) => sum + request.promptTokens, 0)
  return prompt ? round(requests.reduce((sum, request) => sum + request.cachedTokens, 0) / prompt, 4) : 0
}

/**
 * The compaction keys: the cached share of the compaction requests themselves, of every main request
 * after the first compaction, and of the first main request after each one; and the cost of that first
 * request, alone and with its compaction request, against the first request of the same turn in
 * `reference`, the same session without compaction.
 */
export function compactionMetrics(run: ConfigurationRun, reference: ConfigurationRun): Record<string, number> {
  const { requests } = run
  const first = requests.findIndex((request) => request.compaction)
  const after = first < 0 ? [] : requests.slice(first).filter((request) => !request.compaction)
  const right = requests.filter((request, index) => !request.compaction && requests[index - 1]?.compaction)
  const same = right.map((request) => reference.requests.find((other) => other.turn === request.turn)!)
  const sum = (list: RequestRecord[]) => list.reduce((total, request) => total + cost(request), 0)
  return {
    compactions: requests.filter((request) => request.compaction).length,
    cache_share_compaction_request: cachedShare(requests.filter((request) => request.compaction)),
    cache_share_after_compaction: cachedShare(after),
    cache_share_first_after_compaction: cachedShare(right),
    cost_step_after_compaction_vs_without: right.length ? round(sum(right) / sum(same), 3) : 0,
    // The step that compacts pays for the compaction request too.
    cost_compacting_step_vs_without: right.length ? round((sum(right) + sum(requests.filter((request) => request.compaction))) / sum(same), 3) : 0,
  }
}

/** What the benchmark promises: a key, a comparison and a bound. */
export const TARGETS: { key: string; check: '>=' | '<=' | '='; bound: number }[] = [
  // the keepalive: spend with it over spend without, pings included, on gaps around the lifetime; quiet past its idle bound
  { key: 'spend_keepalive_over_none', check: '<=', bound: 0.8 },
  { key: 'keepalive_pings_long_idle', check: '=', bound: 0 },
  { key: 'cache_share_canonical', check: '>=', bound: 0.95 },
  { key: 'cache_share_mcp_canonical', check: '>=', bound: 0.99 },
  { key: 'cache_share_mcp_key_shuffle', check: '>=', bound: 0.99 },
  { key: 'cache_lost_on_addition_deepseek_anthropic_addition_only', check: '=', bound: 0 },
  { key: 'cache_lost_on_addition_deepseek_anthropic_in_history', check: '=', bound: 0 },
  { key: 'cache_share_deepseek_addition_only', check: '=', bound: 1 },
  { key: 'cache_share_compaction_request', check: '>=', bound: 0.9 },
  { key: 'cache_share_anthropic_breakpoints', check: '>=', bound: 0.95 },
  { key: 'cache_share_anthropic_addition_only', check: '>=', bound: 0.99 },
  { key: 'cache_share_anthropic_in_history', check: '>=', bound: 0.99 },
  { key: 'cache_share_dashscope_markers', check: '>=', bound: 0.95 },
  { key: 'cache_share_openai_breakpoints', check: '>=', bound: 0.99 },
  // forks (src/cache/forks.ts): the least of the five provider routes
  { key: 'cache_share_fork_first_request', check: '>=', bound: 0.95 },
  { key: 'cache_share_parent_after_fork', check: '>=', bound: 0.95 },
  { key: 'cache_share_side_question', check: '>=', bound: 0.95 },
  // the provider's verdict and DSH's name the same cause on every break both saw; the eviction is the provider's alone
  { key: 'cache_reason_agreement', check: '=', bound: 1 },
  { key: 'cache_reason_provider_only', check: '=', bound: 1 },
  // the real detector, predicting with each route's profile, explains every fall the emulated provider reported
  ...['anthropic_breakpoints', 'openai_prompt_cache_key', 'dashscope_markers', 'deepseek_addition_only'].map((key) => (
    { key: `cache_unexplained_breaks_${key}`, check: '=' as const, bound: 0 })),
]

export function meets(value: number, target: (typeof TARGETS)[number]): boolean {
  return target.check === '>=' ? value >= target.bound : target.check === '<=' ? value <= target.bound : value === target.bound
}
