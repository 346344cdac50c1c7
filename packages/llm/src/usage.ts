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
