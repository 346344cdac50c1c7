import type LlmRuntime from 'dsh-llm'
import type { GenerateOptions } from 'dsh-llm'
import type { CacheMark } from './layout.ts'
import type { CacheRules } from './rules.ts'

/** How one model's route caches: the provider's rules, and where the route's adapter puts cache markers. */
export interface RouteCaching {
  rules?: CacheRules
  /** The markers the request for `options` carries: the adapter's own plan (`LlmRuntime.cacheMarks`, dsh-llm's `planCacheMarks`). */
  marks?: (options: GenerateOptions) => readonly CacheMark[]
}

/**
 * The caching of `model`'s route, from its provider profile (`llm.cachePolicy`): the mechanism, unit,
 * minimum for this model, the TTL its entry asks for (none where the provider states no bound) and the
 * lookback; its markers are the ones the route's adapter places (`LlmRuntime.cacheMarks`). A `generic` route (the offline model, a self-hosted server, a proxy) states no rules a
 * prediction could rest on, so it has none: the detector then compares reads only, as the specification describes.
 * An unknown model has none either.
 */
export function routeCaching(llm: Pick<LlmRuntime, 'cachePolicy' | 'cacheMarks'>, model: string): RouteCaching {
  let policy
  try {
    policy = llm.cachePolicy(model)
  } catch {
    return {}
  }
  const { profile, ttl, minimumTokens } = policy
  if (profile.id === 'generic') return {}
  const explicit = profile.cache.mechanism === 'explicit-breakpoints'
  const rules: CacheRules = {
    profile: profile.id,
    mechanism: explicit ? 'breakpoints' : 'automatic',
    unitTokens: profile.cache.unitTokens,
    minimumTokens,
    ...(ttl.seconds === undefined ? {} : { ttlMs: ttl.seconds * 1000 }),
    ...(explicit && profile.cache.lookbackBlocks !== undefined ? { lookbackBlocks: profile.cache.lookbackBlocks } : {}),
  }
  return { rules, marks: (options) => marksOf(llm, options) }
}

// A model whose adapter left since the request went out has no markers to report.
function marksOf(llm: Pick<LlmRuntime, 'cacheMarks'>, options: GenerateOptions): readonly CacheMark[] {
  try {
    return llm.cacheMarks(options)
  } catch {
    return []
  }
}
