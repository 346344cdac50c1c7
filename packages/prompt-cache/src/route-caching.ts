import type { LlmRuntime, GenerateOptions } from 'dsh-llm'
import type { CacheMark } from './layout.ts'
import type { CacheRules } from './rules.ts'

/** How one model's route caches: the provider's rules, and where the route's planner puts cache markers. */
export interface RouteCaching {
  rules?: CacheRules
  marks?: (options: GenerateOptions) => CacheMark[]
}

/**
 * The caching of `model`'s route, from its provider profile. A route whose profile is unknown (the offline
 * model, an endpoint that resolves to no profile) has none: the detector then compares reads only.
 */
export function routeCaching(_llm: LlmRuntime, _model: string): RouteCaching {
  return {}
}
