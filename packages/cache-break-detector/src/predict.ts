import { charsAt, commonPrefix, totalOf, type PrefixLayout } from './layout.ts'
import { ANTHROPIC_LOOKBACK_BLOCKS, type CacheRules } from './rules.ts'

/** A request as the prediction reads it: its layout, the prompt tokens the provider counted, when it went out. */
export interface PredictedRequest {
  layout: PrefixLayout
  /** Every prompt token of the request, as the provider reported them. */
  inputTokens: number
  /** Dispatch time, ms since the epoch. */
  at?: number
}

/** A reason the rules give for serving less than the unchanged prefix. */
export type PredictionCause = 'no_breakpoint' | 'below_minimum' | 'ttl_expired'

/** What the provider should serve from cache for `current`, by its rules. */
export interface CachePrediction {
  /** Tokens that should be read from cache. */
  tokens: number
  /** Tokens of the front `current` shares with the previous request: what a perfect cache could serve. */
  prefixTokens: number
  /** Tokens the prefix structure allows (breakpoints and units), before the minimum and the TTL apply. */
  structuralTokens: number
  /** Why the rules serve less than the prefix, when they do. */
  causes: PredictionCause[]
}

/**
 * The cached tokens `current` should read, given the agent's previous request and the provider's rules:
 * the front the two share — up to the last breakpoint of the previous request that a breakpoint of this one
 * reaches within the lookback, on an explicit cache — in whole units, if it is at least the minimum, and
 * only when the idle gap is within the TTL. Tokens are the provider's: the shared characters are scaled by
 * the previous request's reported prompt tokens (exactly those tokens when the whole previous request is
 * the shared front). Pure.
 */
export function predictCacheRead(previous: PredictedRequest, current: PredictedRequest, rules: CacheRules): CachePrediction {
  const explicit = rules.mechanism === 'breakpoints'
  const common = commonPrefix(previous.layout, current.layout, !explicit)
  const total = totalOf(previous.layout).chars
  const tokensOf = (chars: number) => chars >= total && common.whole ? previous.inputTokens
    : total ? Math.floor(previous.inputTokens * Math.min(chars, total) / total) : 0
  const prefixTokens = tokensOf(common.chars)
  const causes: PredictionCause[] = []

  let cacheable = prefixTokens
  if (explicit) {
    const lookback = rules.lookbackBlocks ?? ANTHROPIC_LOOKBACK_BLOCKS
    // an entry exists where the previous request put a marker; a marker of this request finds it within the lookback
    const found = previous.layout.marks
      .filter((entry) => entry <= common.blocks && current.layout.marks.some((mark) => mark >= entry && mark - entry <= lookback))
      .at(-1)
    if (found === undefined) causes.push('no_breakpoint')
    cacheable = found === undefined ? 0 : tokensOf(charsAt(previous.layout, found))
  }
  const structuralTokens = Math.floor(cacheable / rules.unitTokens) * rules.unitTokens
  let tokens = structuralTokens
  if (!causes.length && prefixTokens > 0 && tokens < rules.minimumTokens) {
    causes.push('below_minimum')
    tokens = 0
  }
  const gap = previous.at !== undefined && current.at !== undefined ? current.at - previous.at : undefined
  if (rules.ttlMs !== undefined && gap !== undefined && gap > rules.ttlMs) {
    causes.push('ttl_expired')
    tokens = 0
  }
  return { tokens, prefixTokens, structuralTokens, causes }
}
