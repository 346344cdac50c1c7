import Schema from 'schemastery'
import { defineEvents, optional, record, type EventMapOf } from 'dsh-session'

const count = Schema.natural()
const usd = Schema.number().min(0).description('a number of USD >= 0')

/**
 * `keepalive/ping`: the keepalive refreshed the session's warm prefix while it waited. `turn` and `step` name
 * the request it repeated (with `max_tokens` 1); `idleMs` is the time since that request, `ttlMs` the lifetime
 * it kept from ending. `usage` is what the provider billed for the ping; `cost` its price and `saving` what one
 * avoided re-write of the prefix is worth (USD, when the model has a price). `compacted`: instead of a ping,
 * the session was compacted while warm (`context/compaction` follows). `error`: the ping failed (and pinging
 * stopped for this wait).
 */
export const KEEPALIVE_EVENTS = defineEvents({
  'keepalive/ping': record({
    turn: count,
    step: count,
    idleMs: count,
    ttlMs: count,
    usage: optional(record({ inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count }).description('a usage record')),
    cost: optional(usd),
    saving: optional(usd),
    compacted: optional(Schema.const(true).description('true or absent')),
    error: optional(Schema.string()),
  }, { open: true }),
  /**
   * `keepalive/saved`: the session's next request came after the lifetime would have ended without the wait's
   * `pings`, and read the kept prefix (`readTokens`). `waitMs` is the wait; `saving` (USD, when priced) what
   * writing that prefix again would have cost over reading it. The pings' own cost is on their events.
   */
  'keepalive/saved': record({
    turn: count,
    step: count,
    pings: count,
    waitMs: count,
    ttlMs: count,
    readTokens: count,
    saving: optional(usd),
  }, { open: true }),
})

declare module 'dsh-session' {
  interface SessionEventMap extends EventMapOf<typeof KEEPALIVE_EVENTS> {}
}

/** The data of one `keepalive/ping` event. */
export type KeepalivePing = EventMapOf<typeof KEEPALIVE_EVENTS>['keepalive/ping']
/** The data of one `keepalive/saved` event. */
export type KeepaliveSaved = EventMapOf<typeof KEEPALIVE_EVENTS>['keepalive/saved']
