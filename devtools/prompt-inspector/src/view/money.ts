import type { RawEvent } from './events.ts'
import type { UncachedCause, ViewRequest } from './model.ts'

/** What a session's requests cost in USD, from its `request/cost` records (logged only for a model with a price). */
export interface ViewMoney {
  /** Requests that have a cost record. */
  priced: number
  billed: number
  /** The same tokens with no cache. */
  noCache: number
  /** What the breaks cost over a full hit. */
  breakCost: number
  /** Any figure is the offline model's emulation. */
  emulated: boolean
  /** Billed, and break cost, summed over the requests of each cause (causes with no priced request left out). */
  byCause: Partial<Record<UncachedCause, { billed: number; breakCost: number }>>
}

const usd = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0)

/**
 * Sums the `request/cost` records of a session, each to the request it follows (the last `step/start` before
 * it) and so to that request's cause. Null when the log has none: a model without a price shows tokens only.
 */
export function moneyOf(events: readonly RawEvent[], requests: readonly ViewRequest[]): ViewMoney | null {
  let money: ViewMoney | null = null
  let at = -1
  for (const event of events) {
    while (at + 1 < requests.length && requests[at + 1]!.seq < event.seq) at++
    if (event.type !== 'request/cost') continue
    money ??= { priced: 0, billed: 0, noCache: 0, breakCost: 0, emulated: false, byCause: {} }
    const billed = usd(event.data.billed)
    const breakCost = usd(event.data.breakCost)
    money.priced++
    money.billed += billed
    money.noCache += usd(event.data.noCache)
    money.breakCost += breakCost
    if (event.data.emulated === true) money.emulated = true
    // a record before any request (a hand-edited log) counts in the totals only
    const cause = requests[at]?.cause
    if (cause === undefined) continue
    const sum = money.byCause[cause] ??= { billed: 0, breakCost: 0 }
    sum.billed += billed
    sum.breakCost += breakCost
  }
  return money
}

/** An amount as the report and the page write it: four decimals under $10, cents above. */
export function dollars(usd: number): string {
  return `$${usd.toFixed(usd < 10 ? 4 : 2)}`
}
