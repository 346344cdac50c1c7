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

/** What the benchmark promises: a key, a comparison and a bound. */
export const TARGETS: { key: string; check: '>=' | '='; bound: number }[] = [
  { key: 'cache_share_canonical', check: '>=', bound: 0.95 },
  { key: 'cache_share_mcp_canonical', check: '>=', bound: 0.99 },
  { key: 'cache_lost_on_addition_addition_only', check: '=', bound: 0 },
  { key: 'cache_lost_on_addition_in_history', check: '=', bound: 0 },
]

export function meets(value: number, target: (typeof TARGETS)[number]): boolean {
  return target.check === '>=' ? value >= target.bound : value === target.bound
}
