import type { Usage } from 'dsh-core'

const USAGE_KEYS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const

/** A usage record of zeros. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
}

/**
 * Turns a provider's partial figures into a full `Usage`: missing, negative or non-finite numbers become
 * 0, fractions round down, and `inputTokens` is raised to at least the cached figures, because
 * `inputTokens` counts every prompt token including cache reads and writes.
 */
export function normalizeUsage(partial: Partial<Usage> | null | undefined): Usage {
  const usage = emptyUsage()
  for (const key of USAGE_KEYS) usage[key] = toCount(partial?.[key])
  usage.inputTokens = Math.max(usage.inputTokens, usage.cacheReadTokens + usage.cacheWriteTokens)
  if (partial?.emulated === true) usage.emulated = true
  return usage
}

/** Sums two usage records field by field (e.g. the steps of one turn). */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum = emptyUsage()
  for (const key of USAGE_KEYS) sum[key] = a[key] + b[key]
  // a sum with any emulated figure in it is not a provider's figure
  if (a.emulated || b.emulated) sum.emulated = true
  return sum
}

function toCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0
}


/**
 * DashScope's usage record (Alibaba Cloud Model Studio), native (`input_tokens`, `output_tokens`) or
 * OpenAI-compatible (`prompt_tokens`, `completion_tokens`). Both put cache figures in
 * `prompt_tokens_details`: `cached_tokens` read from the cache, `cache_creation_input_tokens` written to
 * an explicit cache.
 */
export interface DashScopeUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  prompt_tokens?: number | null
  completion_tokens?: number | null
  prompt_tokens_details?: { cached_tokens?: number | null; cache_creation_input_tokens?: number | null } | null
}

/** Normalizes DashScope usage; its prompt figure already includes cache reads and writes. */
export function usageFromDashScope(usage: DashScopeUsage | null | undefined): Usage {
  const details = usage?.prompt_tokens_details
  return normalizeUsage({
    inputTokens: usage?.input_tokens ?? usage?.prompt_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? usage?.completion_tokens ?? 0,
    cacheReadTokens: details?.cached_tokens ?? 0,
    cacheWriteTokens: details?.cache_creation_input_tokens ?? 0,
  })
}
