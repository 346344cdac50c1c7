import type { EventMapOf, TypeOf } from './event-schema.ts'
import type {
  CORE_EVENTS, compactionReason, headerReason, permissionAnswer, permissionDecider, permissionRule, requestHeader, turnEndReason,
} from './event-table.ts'

/**
 * Why a `request/header` was logged: the first request, the first after a reload, a changed header, or the
 * first header after a `model/switch`.
 */
export type HeaderReason = TypeOf<typeof headerReason>

/** Why a compaction ran: the next request passed the configured share of the window, or someone asked. */
export type CompactionReason = TypeOf<typeof compactionReason>

/** How a turn ended. */
export type TurnEndReason = TypeOf<typeof turnEndReason>

/**
 * The model-facing front of a request: model id, rendered system prompt, effective tools in order, and
 * the tools declared with deferred loading on routes that support it (in tool order; absent when none),
 * since that set decides `defer_loading` on the wire.
 */
export type RequestHeader = TypeOf<typeof requestHeader>

/** Who decided a tool call: the policy, an earlier "always" answer of this session, the person asked, or no one. */
export type PermissionDecider = TypeOf<typeof permissionDecider>

/** The policy key that decided a call `by: 'policy'`. */
export type PermissionRule = TypeOf<typeof permissionRule>

/** What the person asked chose. */
export type PermissionAnswer = TypeOf<typeof permissionAnswer>

/** The data of each core event type, as `CORE_EVENTS` (event-table.ts) defines it. */
export type CoreEventMap = EventMapOf<typeof CORE_EVENTS>

/**
 * Data of each event type, by type: the core types of `CORE_EVENTS`, validated field by field at append and
 * at load. Other packages add their own `prefix/verb` types by augmenting this interface, and register their
 * schemas with `defineEvents` beside it so that they are validated too (unregistered ones are checked as
 * JSON only).
 */
export interface SessionEventMap extends CoreEventMap {}

/** A type some package declared in `SessionEventMap`. */
export type KnownEventType = keyof SessionEventMap & string

/** Data accepted for an event type: the mapped shape for known types, any JSON object otherwise. */
export type EventData<K extends string> = K extends keyof SessionEventMap ? SessionEventMap[K] : Record<string, unknown>

interface Envelope<K extends string, D> {
  readonly seq: number
  readonly time: string
  readonly type: K
  readonly data: D
}

/**
 * One logged event. Deep-frozen once appended. `SessionEvent<'turn/start'>` is one type's; `SessionEvent`
 * alone is `KnownEvent`, the union of every declared type's, which narrows on `type`; `SessionEvent<string>`
 * is any event, with JSON object data.
 */
export type SessionEvent<K extends string = KnownEventType> = K extends KnownEventType ? Envelope<K, SessionEventMap[K]> : Envelope<K, Record<string, unknown>>

/**
 * A logged event of a declared type: switch on `type` and `data` is that type's. A log may also hold types
 * no loaded package declared (any `prefix/verb` with JSON data); they match no case of such a switch.
 */
export type KnownEvent = SessionEvent<KnownEventType>
