import type { GenerateOptions, LlmRuntime } from 'dsh-llm'
import type { CacheMark } from './layout.ts'
import type { CacheRules } from './rules.ts'

/** How one model's route caches: the provider's rules, and where the route's planner puts cache markers. */
export interface RouteCaching {
  rules?: CacheRules
  marks?: (options: GenerateOptions) => CacheMark[]
}

/**
 * The caching of `model`'s route, from its provider profile (`llm.cachePolicy`): the mechanism, unit,
 * minimum for this model, the TTL its entry asks for (none where the provider states no bound) and the
 * lookback. A `generic` route (the offline model, a self-hosted server, a proxy) states no rules a
 * prediction could rest on, so it has none: the detector then compares reads only, as the specification describes.
 * An unknown model has none either.
 */
export function routeCaching(llm: Pick<LlmRuntime, 'cachePolicy'>, model: string): RouteCaching {
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
  return { rules, ...(profile.id === 'anthropic' ? { marks: anthropicMarks } : profile.id === 'dashscope' ? { marks: dashscopeMarks } : {}) }
}

/** Anthropic's lookback, which the planner's grid of extra breakpoints follows. */
const GRID = 20

/**
 * Where dsh-llm-anthropic's planner puts its breakpoints (its `placeBreakpoints`, restated in the
 * detector's blocks): the last tool, the end of the system prompt, the newest history block, and — with the
 * one breakpoint left — the highest point of the 20-block grid below the newest.
 */
function anthropicMarks(options: GenerateOptions): CacheMark[] {
  const marks: CacheMark[] = []
  if (options.tools.length) marks.push('tools')
  if (options.system) marks.push('system')
  if (!options.messages.length) return marks
  marks.push(-1)
  if (marks.length < 4) marks.push({ grid: GRID })
  return marks
}

/** dsh-llm-openai's DashScope planner: the system message and the newest message. */
function dashscopeMarks(options: GenerateOptions): CacheMark[] {
  return [...(options.system ? ['system' as const] : []), ...(options.messages.length ? [-1] : [])]
}
