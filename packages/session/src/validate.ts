import { describeValue } from 'dsh-core'
import { checkOf, type Check, type Fail } from './compile-check.ts'
import { CORE_EVENTS } from './event-table.ts'
import type { AnySchema } from './event-schema.ts'
import { findNonJson, isPlainObject } from './json.ts'
import { SessionError } from './errors.ts'
import type { KnownEventType, SessionEventMap } from './events.ts'

/** Event types whose data this package validates field by field. */
export const CORE_EVENT_TYPES: readonly string[] = Object.freeze(Object.keys(CORE_EVENTS))

/** Type prefixes owned by this package; extension types must use another prefix. */
export const CORE_PREFIXES: readonly string[] = Object.freeze([...new Set(CORE_EVENT_TYPES.map(t => t.split('/')[0]!))])

const EXTENSION_TYPE = /^[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+$/

// own keys only: `constructor` or `toString` are no event types
const checks = new Map<string, { schema: AnySchema; check: Check }>(
  Object.entries(CORE_EVENTS).map(([type, schema]) => [type, { schema, check: checkOf(schema) }]),
)

/**
 * Registers the data schemas of event types another package logs (the types it adds to `SessionEventMap`
 * in `declare module 'dsh-session'`), so that appends and loads validate their data field by field, as for
 * the core types. Call it at module level, beside the augmentation; returns the table, so the map can be
 * derived from it (`interface SessionEventMap extends EventMapOf<typeof table> {}`). Types must look like
 * `prefix/verb` with a prefix that is not a core one; registering a type again with another schema throws.
 */
export function defineEvents<const T extends Record<string, AnySchema>>(table: T): T {
  const compiled = Object.entries(table).map(([type, schema]) => {
    if (!EXTENSION_TYPE.test(type) || CORE_PREFIXES.includes(type.split('/')[0]!)) {
      throw new SessionError('INVALID_EVENT', `defineEvents: event type ${JSON.stringify(type)} must look like "prefix/verb" with a prefix other `
        + `than ${CORE_PREFIXES.join(', ')}`)
    }
    const known = checks.get(type)
    if (known && known.schema !== schema) {
      throw new SessionError('INVALID_EVENT', `defineEvents: event type ${JSON.stringify(type)} already has another schema; one package owns a type`)
    }
    if (schema.type !== 'object') {
      throw new SessionError('INVALID_EVENT', `defineEvents: the data of ${JSON.stringify(type)} must be a record (an object schema), got a "${schema.type}" schema`)
    }
    return [type, { schema, check: checkOf(schema) }] as const
  })
  for (const [type, entry] of compiled) checks.set(type, entry)
  return table
}

/** A validated type and its data, typed as the event map says (an undeclared extension type reads as a declared one). */
export type EventPayload = { [K in KnownEventType]: { type: K; data: SessionEventMap[K] } }[KnownEventType]

/**
 * Throws a SessionError (INVALID_EVENT) unless `data` is a valid payload for `type`; returns them typed: this
 * is where data read from outside becomes an event of the map.
 */
export function validateEvent(type: unknown, data: unknown): EventPayload {
  if (typeof type !== 'string') {
    throw new SessionError('INVALID_EVENT', `event type must be a string, got ${describeValue(type)}`)
  }
  const fail: Fail = (path, expected, got) => {
    throw new SessionError('INVALID_EVENT', `${type}: field "${path}" must be ${expected}, got ${describeValue(got)}`)
  }
  const known = checks.get(type)
  if (known) {
    if (!isPlainObject(data)) {
      throw new SessionError('INVALID_EVENT', `${type}: data must be an object, got ${describeValue(data)}`)
    }
    known.check(data, '', fail)
    return { type, data } as EventPayload
  }
  if (!EXTENSION_TYPE.test(type) || CORE_PREFIXES.includes(type.split('/')[0]!)) {
    throw new SessionError('INVALID_EVENT', `unknown event type ${JSON.stringify(type)}; core types: ${CORE_EVENT_TYPES.join(', ')}; `
      + `extension types look like "prefix/verb" with a prefix other than ${CORE_PREFIXES.join(', ')}`)
  }
  if (!isPlainObject(data)) {
    throw new SessionError('INVALID_EVENT', `${type}: data must be a JSON object, got ${describeValue(data)}`)
  }
  const problem = findNonJson(data, '')
  if (problem) fail(problem.path, `JSON (${problem.reason})`, problem.value)
  return { type, data } as EventPayload
}
