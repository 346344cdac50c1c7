import { MAX_TIMER_MS, quote } from 'dsh-core'
import Schema from 'schemastery'
import type { KeepaliveSettings, ModelCachePolicy } from '../profiles/types.ts'

/** A model entry's `keepalive` as written: every key optional, the defaults below fill the rest. */
export type KeepaliveEntry = Partial<KeepaliveSettings>

/** Spend cap of a keepalive that names none, in USD per session. */
export const DEFAULT_KEEPALIVE_MAX_SPEND = 1
/** Idle bound of a keepalive that names none: 30 minutes. */
export const DEFAULT_KEEPALIVE_IDLE_LIMIT_MS = 30 * 60_000

const KEYS = ['maxSpend', 'idleLimitMs', 'compactWhenWarm']

/**
 * The schema of a model entry's `keepalive` key: any value, checked by `resolveKeepalive`, so a bad one is
 * refused in one line naming the key (not as a failed union of the whole entry). Absent, it stays absent (off).
 */
export const keepaliveSchema: Schema<KeepaliveEntry | undefined> = Schema.any().description(
  `{ maxSpend?: USD per session > 0 (default ${DEFAULT_KEEPALIVE_MAX_SPEND}), idleLimitMs?: ms (default 1800000), compactWhenWarm?: boolean (default true) }; `
  + 'off when absent. Refreshes the warm prefix while the session waits, only while a ping costs less than the write it saves.',
)

/**
 * The keepalive of model `id` under its cache `policy`, checked: undefined when the entry sets none. Throws
 * what `invalid` builds, in one line naming the model and the key, for a bad value, for a provider whose
 * lifetime is unknown or is not refreshed by a read (a ping could not be timed, or would refresh nothing), and
 * for a model without a price (`priced` false: a ping could not be weighed).
 */
export function resolveKeepalive(
  input: KeepaliveEntry | undefined, id: string, policy: ModelCachePolicy, priced: boolean, invalid: (message: string) => Error,
): KeepaliveSettings | undefined {
  if (input === undefined) return undefined
  const bad = (key: string, value: unknown, requirement: string) => invalid(`model ${quote(id)} has keepalive.${key} ${quote(value)}; ${requirement}`)
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw invalid(`model ${quote(id)} has keepalive ${quote(input)}; it must be a map such as { maxSpend: 0.5, idleLimitMs: 1800000 }`)
  }
  const unknown = Object.keys(input).find((key) => !KEYS.includes(key))
  if (unknown !== undefined) throw invalid(`model ${quote(id)} has keepalive.${unknown}, which is not a keepalive key; valid: ${KEYS.join(', ')}`)
  const { maxSpend = DEFAULT_KEEPALIVE_MAX_SPEND, idleLimitMs = DEFAULT_KEEPALIVE_IDLE_LIMIT_MS, compactWhenWarm = true } = input
  if (typeof maxSpend !== 'number' || !Number.isFinite(maxSpend) || maxSpend <= 0) {
    throw bad('maxSpend', maxSpend, 'it must be a number of USD > 0 (a cap of 0 would never let a ping go: leave keepalive out instead)')
  }
  if (typeof idleLimitMs !== 'number' || !Number.isSafeInteger(idleLimitMs) || idleLimitMs < 1 || idleLimitMs > MAX_TIMER_MS) {
    throw bad('idleLimitMs', idleLimitMs, `it must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS}`)
  }
  if (typeof compactWhenWarm !== 'boolean') throw bad('compactWhenWarm', compactWhenWarm, 'it must be true or false')
  const { ttl, profile } = policy
  if (ttl.seconds === undefined) {
    throw invalid(`model ${quote(id)} has keepalive, but the ${profile.id} profile's cache lifetime is unknown (${ttl.name}), `
      + 'so no ping can be timed before it ends; the keepalive refuses to start: remove keepalive from this entry')
  }
  if (!ttl.refreshedOnHit) {
    throw invalid(`model ${quote(id)} has keepalive, but a read does not refresh the ${profile.id} profile's ${ttl.name} cache lifetime, `
      + 'so a ping would keep nothing warm; the keepalive refuses to start: remove keepalive from this entry')
  }
  if (!priced) {
    throw invalid(`model ${quote(id)} has keepalive, but no price: the keepalive weighs each ping against the write it saves; `
      + 'give the entry a price { input, output, cacheRead, cacheWrite } or remove keepalive from it')
  }
  return { maxSpend, idleLimitMs, compactWhenWarm }
}
