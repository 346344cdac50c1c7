import type { Context } from 'cordis'
import type { PromptCacheBreak } from 'dsh-cache-break-detector'

/** Why a cache broke, as a `prompt-cache/break` says. */
export type BreakReason = PromptCacheBreak['reason']

/** The detector's breaks per configuration, by reason, across all its lifetimes. */
export const breaks: Map<string, BreakReason[]> = new Map()

/** Reasons the detector gives when its prediction (from the route's profile) does not explain the read. */
export const UNEXPLAINED: readonly BreakReason[] = ['provider_miss', 'likely_provider_ttl_or_eviction']

/**
 * Records every `prompt-cache/break` of configuration `key`: the benchmark mounts the real detector, so a
 * run shows whether it explains each fall in cache reads the emulated provider reported.
 */
export function watchBreaks(ctx: Context, key: string) {
  if (!breaks.has(key)) breaks.set(key, [])
  ctx.on('prompt-cache/break', (_agent, info) => { breaks.get(key)!.push(info.reason) })
}

/** The keys of one configuration: how many breaks, and how many the prediction left unexplained. */
export function breakMetrics(key: string): Record<string, number> {
  const reasons = breaks.get(key) ?? []
  return {
    [`cache_breaks_${key}`]: reasons.length,
    [`cache_unexplained_breaks_${key}`]: reasons.filter((reason) => UNEXPLAINED.includes(reason)).length,
  }
}
