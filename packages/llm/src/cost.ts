import type { Usage } from 'dsh-core'
import type { ModelPrice } from './profiles/prices.ts'

/** What one request cost, in USD, at its model's price. */
export interface RequestCost {
  /** What the provider bills: uncached input, cache reads, cache writes and output, each at its rate. */
  billed: number
  /** What the same tokens would have cost with no cache: every prompt token at the input rate, plus output. */
  noCache: number
  /**
   * Set when the request missed `missedTokens` the cache should have served (a break): what those tokens
   * cost at the rate they were billed at (a write first, then plain input) over what reading them would have.
   */
  breakCost?: number
  /** Set when the usage is an emulation (the offline model), not a provider's figures. */
  emulated?: true
}

const PER_TOKEN = 1 / 1_000_000

/**
 * The cost of `usage` at `price`. `oneHourWrites` prices the cache writes at `cacheWrite1h` where the price
 * has one (a model entry asking for `cacheTtl: 1h`). `missedTokens`, the tokens a break cost the cache,
 * adds `breakCost`; they are counted as billed among the writes first, then the uncached input.
 */
export function requestCost(usage: Usage, price: ModelPrice, options: { oneHourWrites?: boolean; missedTokens?: number } = {}): RequestCost {
  const write = options.oneHourWrites ? price.cacheWrite1h ?? price.cacheWrite : price.cacheWrite
  const uncached = Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens)
  const billed = (uncached * price.input + usage.cacheReadTokens * price.cacheRead + usage.cacheWriteTokens * write + usage.outputTokens * price.output) * PER_TOKEN
  const noCache = (usage.inputTokens * price.input + usage.outputTokens * price.output) * PER_TOKEN
  const cost: RequestCost = { billed, noCache }
  const missed = options.missedTokens ?? 0
  if (missed > 0) {
    const written = Math.min(missed, usage.cacheWriteTokens)
    const plain = Math.min(missed - written, uncached)
    cost.breakCost = Math.max(0, written * write + plain * price.input - (written + plain) * price.cacheRead) * PER_TOKEN
  }
  if (usage.emulated) cost.emulated = true
  return cost
}
