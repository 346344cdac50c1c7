export { default, SessionStore } from './store.ts'
export type { SessionStoreConfig } from './store.ts'
export type { SessionStoreApi } from './store-api.ts'
export { Session, restoreEvent } from './session.ts'
export type { EventSink, SessionOptions } from './session.ts'
export { SessionError } from './errors.ts'
export type { SessionErrorCode } from './errors.ts'
export type {
  CompactionReason, EventData, HeaderReason, KnownSessionEvent, RequestHeader, SessionEvent, SessionEventMap, TurnEndReason,
} from './events.ts'
