import type { RawEvent } from './events.ts'

/** What the keepalive did in a session: its pings and what they cost, the waits they kept warm and what that saved. */
export interface ViewKeepalive {
  /** `keepalive/ping` events that sent a ping (not a compaction, not a failure). */
  pings: number
  /** USD the pings cost; null when none was priced. */
  cost: number | null
  /** Compactions the keepalive ran while the cache was warm, instead of a ping. */
  compactedWarm: number
  failed: number
  /** Waits whose next request came after the lifetime would have ended and read the kept prefix (`keepalive/saved`). */
  kept: number
  /** What those waits saved, USD, before the pings' cost; null when none was priced. */
  saved: number | null
}

/** The keepalive's figures from a session's events; null when it never acted in the session. */
export function foldKeepalive(events: readonly RawEvent[]): ViewKeepalive | null {
  const view: ViewKeepalive = { pings: 0, cost: null, compactedWarm: 0, failed: 0, kept: 0, saved: null }
  let seen = false
  const add = (total: number | null, value: unknown) => (typeof value === 'number' ? (total ?? 0) + value : total)
  for (const { type, data } of events) {
    if (type === 'keepalive/ping') {
      seen = true
      if (data.compacted === true) view.compactedWarm++
      else if (typeof data.error === 'string') view.failed++
      else {
        view.pings++
        view.cost = add(view.cost, data.cost)
      }
    } else if (type === 'keepalive/saved') {
      seen = true
      view.kept++
      view.saved = add(view.saved, data.saving)
    }
  }
  return seen ? view : null
}

const usd = (value: number) => `$${value.toFixed(4)}`

/** One line for the command's report and the page: pings, their cost, the waits kept warm and the net saving. */
export function keepaliveLine(view: ViewKeepalive): string {
  const parts = [`keepalive: ${view.pings} ping(s)${view.cost === null ? '' : ` costing ${usd(view.cost)}`}`]
  parts.push(`${view.kept} wait(s) kept warm past the cache lifetime${view.saved === null ? '' : `, saving ${usd(view.saved)}`}`)
  if (view.saved !== null && view.cost !== null) parts.push(`net ${usd(view.saved - view.cost)}`)
  if (view.compactedWarm) parts.push(`${view.compactedWarm} compaction(s) while warm`)
  if (view.failed) parts.push(`${view.failed} failed ping(s)`)
  return parts.join('; ')
}
