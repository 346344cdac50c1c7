import { quote } from 'dsh-core'

/**
 * What one model's tokens cost, in USD per million tokens, with where the figures were read and when.
 * `cacheWrite` is the write at the profile's default lifetime (Anthropic: 5 minutes); `cacheWrite1h` is set
 * only where a one-hour write is priced differently.
 */
export interface ModelPrice {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
  cacheWrite1h?: number
  /** The page the figures come from (`the app file` for a user's own price without one). */
  source: string
  /** When the figures were read (`YYYY-MM-DD`), when known. */
  date?: string
}

const RATES = ['input', 'output', 'cacheRead', 'cacheWrite', 'cacheWrite1h'] as const
const REQUIRED = ['input', 'output', 'cacheRead', 'cacheWrite'] as const
const KEYS = [...RATES, 'source', 'date'] as const

const ANTHROPIC_PRICING = 'https://platform.claude.com/docs/en/about-claude/pricing'
const OPUS_5_5 = 'https://platform.claude.com/docs/zh-CN/models/opus-5-5/overview'
const SONNET_5 = 'https://platform.claude.com/docs/zh-CN/models/sonnet-5/overview'
// None of these pages shows a date of its own: the date is the day DSH read them.
const READ = '2026-12-06'

const claude = (input: number, cacheWrite: number, cacheWrite1h: number, cacheRead: number, output: number, source = ANTHROPIC_PRICING): ModelPrice =>
  Object.freeze({ input, output, cacheRead, cacheWrite, cacheWrite1h, source, date: READ })

/**
 * Anthropic's prices, per model id (a date suffix `-YYYYMMDD` is matched too), as the pages cited read on
 * 2026-12-06. Left out on purpose: Sonnet 5.5 (its page says a $0.20 cache read, release notes elsewhere a
 * cut to $0.10 on 2026-10-07 that no Anthropic page DSH could read confirms) and Haiku 5.5 (priced in two
 * bands by prompt length, which one rate per token cannot state).
 */
export const ANTHROPIC_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'claude-fable-5-1': claude(10, 12.5, 20, 0.25, 50),
  'claude-mythos-5-1': claude(10, 12.5, 20, 0.25, 50),
  'claude-fable-5': claude(10, 12.5, 20, 1, 50),
  'claude-mythos-5': claude(10, 12.5, 20, 1, 50),
  'claude-opus-5-5': claude(4, 5, 8, 0.2, 20, OPUS_5_5),
  'claude-opus-5': claude(5, 6.25, 10, 0.5, 25),
  'claude-opus-4-8': claude(5, 6.25, 10, 0.5, 25),
  'claude-opus-4-7': claude(5, 6.25, 10, 0.5, 25),
  'claude-opus-4-6': claude(5, 6.25, 10, 0.5, 25),
  'claude-opus-4-5': claude(5, 6.25, 10, 0.5, 25),
  'claude-opus-4-1': claude(15, 18.75, 30, 1.5, 75),
  'claude-sonnet-5': claude(2, 2.5, 4, 0.2, 10, SONNET_5),
})

const DATE_SUFFIX = /-\d{8}$/

/** The price `prices` lists for `model`, by its id or its id without a `-YYYYMMDD` suffix. */
export function listedPrice(prices: Readonly<Record<string, ModelPrice>> | undefined, model: string): ModelPrice | undefined {
  if (!prices) return undefined
  const own = Object.hasOwn(prices, model) ? prices[model] : undefined
  if (own) return own
  const base = model.replace(DATE_SUFFIX, '')
  return base !== model && Object.hasOwn(prices, base) ? prices[base] : undefined
}

/**
 * A model entry's `price` over the profile's `listed` price for it: each key the entry gives replaces the
 * listed one. Throws `Error` with the end of a one-line refusal (`price.input -1; …`) when a key is unknown,
 * a rate is not a number >= 0, or a rate is missing with no listed price to take it from. Undefined when
 * neither gives a price.
 */
export function entryPrice(value: unknown, listed: ModelPrice | undefined): ModelPrice | undefined {
  if (value === undefined || value === null) return listed
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`price ${Array.isArray(value) ? JSON.stringify(value) : quote(value)}; it must be a mapping { input, output, cacheRead, cacheWrite, cacheWrite1h?, source?, date? } in USD per million tokens`)
  }
  const own = value as Record<string, unknown>
  for (const key of Object.keys(own)) {
    if (!(KEYS as readonly string[]).includes(key)) throw new Error(`price.${key}, which is not a price key; valid: ${KEYS.join(', ')}`)
  }
  for (const key of RATES) {
    const rate = own[key]
    if (rate !== undefined && !(typeof rate === 'number' && Number.isFinite(rate) && rate >= 0)) {
      throw new Error(`price.${key} ${quote(rate)}; it must be a number of USD per million tokens >= 0`)
    }
  }
  for (const key of ['source', 'date'] as const) {
    if (own[key] !== undefined && (typeof own[key] !== 'string' || !own[key])) throw new Error(`price.${key} ${quote(own[key])}; it must be a non-empty string`)
  }
  const merged: Record<string, unknown> = { ...listed }
  // a rate the entry changes is the entry's: it no longer comes from the listed page
  const ownRates = RATES.some((key) => own[key] !== undefined)
  if (ownRates) {
    merged.source = 'the app file'
    delete merged.date
  }
  for (const key of KEYS) if (own[key] !== undefined) merged[key] = own[key]
  for (const key of REQUIRED) {
    if (merged[key] === undefined) {
      throw new Error(`price without ${key}, and the profile lists no price for the model to take it from; give ${REQUIRED.join(', ')} in USD per million tokens`)
    }
  }
  return Object.freeze(merged as unknown as ModelPrice)
}
