import { quote } from 'dsh-core'
import type { ToolUpdateMode } from '../types.ts'
import { PROFILES, PROVIDER_IDS } from './catalog.ts'
import type { ModelCachePolicy, ProviderId, ProviderProfile } from './types.ts'

// Alibaba Cloud Model Studio's regional endpoints: dashscope.aliyuncs.com, dashscope-intl.aliyuncs.com, …
const DASHSCOPE_HOST = /^dashscope(-[a-z0-9]+)*\.aliyuncs\.com$/

/**
 * The provider an endpoint belongs to, by its host: `api.anthropic.com`, `api.deepseek.com` (its Chat
 * Completions and its `/anthropic` route), `api.openai.com`, DashScope's hosts; anything else (a proxy,
 * vLLM, llama.cpp, a loopback server) is `generic`. An unparsable URL is `generic` too.
 */
export function providerOfEndpoint(baseURL: string): ProviderId {
  let host: string
  try {
    host = new URL(baseURL).hostname.toLowerCase()
  } catch {
    return 'generic'
  }
  if (host === 'api.anthropic.com') return 'anthropic'
  if (host === 'api.deepseek.com') return 'deepseek'
  if (host === 'api.openai.com') return 'openai'
  if (DASHSCOPE_HOST.test(host)) return 'dashscope'
  return 'generic'
}

/** Whether `value` names a profile. */
export function isProviderId(value: unknown): value is ProviderId {
  return typeof value === 'string' && (PROVIDER_IDS as readonly string[]).includes(value)
}

/**
 * The profile of a model entry: the entry's `provider`, else the adapter's `provider`, else the one of the
 * endpoint's host (`providerOfEndpoint`).
 */
export function resolveProfile(baseURL: string, ...explicit: (ProviderId | undefined)[]): ProviderProfile {
  const chosen = explicit.find((id) => id !== undefined)
  return PROFILES[chosen ?? providerOfEndpoint(baseURL)]
}

/**
 * Why `profile` cannot take tool-update mode `mode`, as the end of a one-line refusal; undefined when it
 * accepts it.
 */
export function toolUpdateRefusal(profile: ProviderProfile, mode: ToolUpdateMode): string | undefined {
  if (profile.toolUpdates.includes(mode)) return undefined
  return `the ${profile.id} profile does not accept it: ${profile.refusal}; valid: ${profile.toolUpdates.join(', ')}`
}

/**
 * The cache policy of `model` under `profile` with the entry's `cacheTtl` (the profile's default when
 * undefined). On a profile with `modelBreakpoints`, the model places them when `cacheBreakpoints` says so,
 * or by default when the facts say it takes them; its lifetimes are then those of the breakpoints. Throws
 * `Error` with the end of a one-line refusal when the profile offers no such lifetime, or no breakpoints.
 */
export function cachePolicy(profile: ProviderProfile, model: string, cacheTtl?: string, cacheBreakpoints?: boolean): ModelCachePolicy {
  const breakpoints = profile.cache.modelBreakpoints
  if (cacheBreakpoints !== undefined && !breakpoints) {
    throw new Error(`cacheBreakpoints ${cacheBreakpoints}, but the ${profile.id} profile has no per-model breakpoints; only entries on the openai profile take the key`)
  }
  const explicit = breakpoints !== undefined && (cacheBreakpoints ?? breakpoints.takes(model))
  const { ttls, ttlChoices } = explicit ? breakpoints : profile.cache
  if (cacheTtl !== undefined && !ttlChoices.includes(cacheTtl)) {
    const owner = explicit ? `the ${profile.id} profile's breakpoint models (${breakpoints.models})` : `the ${profile.id} profile`
    const valid = ttlChoices.length ? `valid: ${ttlChoices.join(', ')}` : 'it offers no choice of lifetime, so leave cacheTtl out'
    throw new Error(`cacheTtl ${quote(cacheTtl)}, which is not a lifetime of ${owner}; ${valid}`)
  }
  const ttl = cacheTtl === undefined ? ttls[0]! : ttls.find((option) => option.name === cacheTtl)!
  return { profile, ttl, minimumTokens: profile.cache.minimumTokens(model), ...explicit && { explicitBreakpoints: true as const } }
}

/** The policy of a model whose adapter declares none (the offline models, test doubles): the generic profile. */
export function defaultCachePolicy(model: string): ModelCachePolicy {
  return cachePolicy(PROFILES.generic, model)
}
