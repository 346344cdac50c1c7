import type { CacheTtl } from './types.ts'

/**
 * Explicit cache breakpoints that only some models of a provider take: OpenAI's `prompt_cache_breakpoint`
 * on content parts with `prompt_cache_options` on the request, from GPT-5.6 on. A model entry may say
 * otherwise with `cacheBreakpoints: true | false`.
 */
export interface ModelBreakpointFacts {
  /** Whether `model` takes the breakpoints when its entry does not say. */
  takes(model: string): boolean
  /** The models `takes` accepts, in words (README, refusals). */
  models: string
  /** At most this many breakpoints are written per request. */
  maxBreakpoints: number
  /** A read matches an entry among this many latest breakpoints of the conversation (no block lookback). */
  lookbackBreakpoints: number
  /** The lifetimes such a model's requests may ask for, the default first (`prompt_cache_options.ttl`). */
  ttls: readonly CacheTtl[]
  /** Names of `ttls` a model entry may choose with `cacheTtl`. */
  ttlChoices: readonly string[]
}

// gpt-<major>[.<minor>], then the end or a suffix (gpt-5.6, gpt-5.6-mini, gpt-6-2027-01-01)
const GPT_VERSION = /^gpt-(\d+)(?:\.(\d+))?(?:$|-)/

/** Whether `model` is GPT-5.6 or later by its id. */
export function isGpt56OrLater(model: string): boolean {
  const version = GPT_VERSION.exec(model)
  if (!version) return false
  const major = Number(version[1])
  const minor = Number(version[2] ?? 0)
  return major > 5 || (major === 5 && minor >= 6)
}

/** OpenAI's explicit breakpoints (the 7.x SDK's `PromptCacheOptions`, the prompt-caching guide). */
export const OPENAI_BREAKPOINTS: ModelBreakpointFacts = {
  takes: isGpt56OrLater,
  models: 'GPT-5.6 and later',
  maxBreakpoints: 4,
  lookbackBreakpoints: 80,
  // the minimum lifetime of every breakpoint a request writes; 30m is the default and the only value. Each
  // request writes its breakpoints again, which starts that lifetime again.
  ttls: [{ name: '30m', seconds: 1800, refreshedOnHit: true }],
  ttlChoices: ['30m'],
}
