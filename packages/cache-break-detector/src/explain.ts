import type { Usage } from 'dsh-core'
import { classifyBreak } from './classify.ts'
import type { PrefixLayout } from './layout.ts'
import { predictCacheRead, type PredictedRequest } from './predict.ts'
import type { CacheRules } from './rules.ts'
import { isCacheDrop, resolveThresholds } from './thresholds.ts'
import type { BreakReason, CacheBreak, CacheObservation, DropThresholds } from './types.ts'

/** An observation the rules can predict for: with the provider's prompt-token count and the request's layout. */
export interface RuledObservation extends CacheObservation {
  usage: Pick<Usage, 'inputTokens' | 'cacheReadTokens' | 'cacheWriteTokens'>
  layout: PrefixLayout
}

/** What `explainBreak` compares with: the route's cache rules (none: the specification's comparison only) and thresholds. */
export interface ExplainOptions {
  rules?: CacheRules
  thresholds?: Partial<DropThresholds>
}

/**
 * Decides whether `current`'s cache read broke and names the cause. Without rules it is `classifyBreak`:
 * a fall past the thresholds against the previous read. With rules the read is also compared with what was
 * on offer — the larger of the previous read and the unchanged front the two requests share — and with the
 * rules' prediction (`predictCacheRead`). The reason is, in this order:
 * - a change in the prefix (the specification's reasons), or `no_breakpoint`, when the prefix structure alone explains the read;
 * - `below_minimum` / `ttl_expired`, when the rules predicted the read and the structure did not;
 * - `provider_miss`, when the prediction said hit and the provider missed anyway.
 * A fall nothing above names (a history rewritten on purpose) keeps the specification's `likely_provider_ttl_or_eviction`.
 * The break carries `profile` and `predictedCacheReadTokens`. Pure.
 */
export function explainBreak(previous: RuledObservation, current: RuledObservation, options: ExplainOptions = {}): CacheBreak | undefined {
  const { rules } = options
  if (!rules) return classifyBreak(previous, current, options.thresholds)
  const limits = resolveThresholds(options.thresholds)
  const prediction = predictCacheRead(request(previous), request(current), rules)
  const read = current.usage.cacheReadTokens
  const before = previous.usage.cacheReadTokens
  const offered = Math.max(before, prediction.prefixTokens)
  if (!isCacheDrop(offered, read, limits)) return undefined

  // the specification's comparison against what was on offer finds every change in the prefix, with its details
  const found = classifyBreak({ ...previous, usage: { ...previous.usage, cacheReadTokens: offered } }, current, limits)!
  const changes = found.allReasons.filter((reason) => reason !== 'likely_provider_ttl_or_eviction')
  const misses = (expected: number) => isCacheDrop(expected, read, limits)
  const primary: BreakReason[] = !misses(prediction.structuralTokens)
    ? [...changes, ...prediction.causes.filter((cause) => cause === 'no_breakpoint')]
    : !misses(prediction.tokens) ? prediction.causes.filter((cause) => cause !== 'no_breakpoint') : ['provider_miss']
  const reasons = [...new Set<BreakReason>([...primary, ...changes, ...prediction.causes])]
  if (!reasons.length) reasons.push('likely_provider_ttl_or_eviction')
  return {
    ...found,
    reason: reasons[0]!,
    previousCacheReadTokens: before,
    allReasons: reasons,
    profile: rules.profile,
    predictedCacheReadTokens: prediction.tokens,
    ...(reasons.includes('ttl_expired') ? { ttlMs: rules.ttlMs } : {}),
  }
}

function request(observation: RuledObservation): PredictedRequest {
  return { layout: observation.layout, inputTokens: observation.usage.inputTokens, ...(observation.at === undefined ? {} : { at: observation.at }) }
}
