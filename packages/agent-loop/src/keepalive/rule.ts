import type { Usage } from 'dsh-core'

/** A model's prices in USD per million tokens, as `ctx.llm.price(model)` gives them (dsh-llm). */
export interface Rates {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  /** Writes of 1-hour entries, where they cost more than 5-minute ones. */
  cacheWrite1h?: number
}

/** What a ping would send: the tokens it reads from the cache and the ones after the last breakpoint. */
export interface WarmPrefix {
  readTokens: number
  uncachedTokens: number
}

/** The warm prefix a repeat of a request leaves after its usage: what it read and wrote is cached now. */
export function warmAfter(usage: Usage): WarmPrefix {
  const readTokens = usage.cacheReadTokens + usage.cacheWriteTokens
  return { readTokens, uncachedTokens: Math.max(0, usage.inputTokens - readTokens) }
}

/** A ping's answer is one token (`max_tokens` 1). */
const PING_OUTPUT_TOKENS = 1

/** What one ping costs, in USD: the prefix read, the tail sent uncached, one output token. */
export function pingCost(warm: WarmPrefix, rates: Rates): number {
  return (warm.readTokens * rates.cacheRead + warm.uncachedTokens * rates.input + PING_OUTPUT_TOKENS * rates.output) / 1e6
}

/** What keeping the prefix saves when the session comes back, in USD: writing it again instead of reading it. */
export function rewriteSaving(warm: WarmPrefix, rates: Rates, ttlName: string): number {
  const write = ttlName === '1h' ? rates.cacheWrite1h ?? rates.cacheWrite : rates.cacheWrite
  return warm.readTokens * Math.max(0, write - rates.cacheRead) / 1e6
}

/** The time a ping goes out: a tenth of the lifetime (at least a second) before the last refresh would expire. */
export function pingDue(refreshedAt: number, ttlMs: number): number {
  return refreshedAt + ttlMs - Math.max(1000, Math.round(ttlMs / 10))
}

/** Everything the keepalive weighs when a ping is due. */
export interface PingQuestion {
  now: number
  /** When the session's last real request went out (pings do not count). */
  requestAt: number
  /** When the prefix was last refreshed (that request, or the last ping). */
  refreshedAt: number
  ttlMs: number
  ttlName: string
  idleLimitMs: number
  /** Pings already sent in this wait, and USD spent on pings in the session so far. */
  pings: number
  spent: number
  maxSpend: number
  warm: WarmPrefix
  /** The shortest prefix the provider caches for the model. */
  minimumTokens: number
  /** Undefined when the model has no price: a ping cannot be weighed. */
  rates: Rates | undefined
}

/** Why no ping goes out. */
export type StopReason = 'expired' | 'idle-limit' | 'not-cached' | 'unpriced' | 'rent-bound' | 'spend-cap'

/** The keepalive's decision for a due ping: send it (with its expected cost and the saving it protects), or stop. */
export type PingAnswer = { ping: true; cost: number; saving: number } | { ping: false; why: StopReason }

/**
 * The rule. Never after expiry (a ping then pays a write and saves nothing), never past the idle bound, never
 * for a prefix the provider does not cache, never unpriced. Then rent or buy: within one wait the pings
 * together may cost at most the one re-write they avoid, so a session that never comes back pays at most that
 * write over again, and one that does saves it less what the pings cost. Last, the session's spend cap.
 */
export function decidePing(question: PingQuestion): PingAnswer {
  const { now, requestAt, refreshedAt, ttlMs, idleLimitMs, warm, rates } = question
  if (now >= refreshedAt + ttlMs) return { ping: false, why: 'expired' }
  if (now - requestAt >= idleLimitMs) return { ping: false, why: 'idle-limit' }
  if (warm.readTokens < Math.max(1, question.minimumTokens)) return { ping: false, why: 'not-cached' }
  if (!rates) return { ping: false, why: 'unpriced' }
  const cost = pingCost(warm, rates)
  const saving = rewriteSaving(warm, rates, question.ttlName)
  if ((question.pings + 1) * cost > saving) return { ping: false, why: 'rent-bound' }
  if (question.spent + cost > question.maxSpend) return { ping: false, why: 'spend-cap' }
  return { ping: true, cost, saving }
}

