export { default } from './store.ts'
export type { SessionStoreConfig } from './store.ts'
export type { SessionStoreApi } from './store-api.ts'
export { Session, restoreEvent } from './session.ts'
export { SessionError } from './errors.ts'
export type {
  CompactionReason, EventData, HeaderReason, PermissionAnswer, PermissionRule, RequestHeader, SessionEvent,
  SessionEventMap, TurnEndReason,
} from './events.ts'
export { defineEvents } from './validate.ts'
export { optional, record } from './event-schema.ts'
export type { EventMapOf } from './event-schema.ts'
export { makeFolder } from './log-file.ts'
export { WriteQueue } from './write-queue.ts'
export { SessionStoreBase, isSessionId } from './store-base.ts'
export { defaultSessionRoot, dshStateFolder } from './state-folder.ts'
export { summarizeSessions } from './summaries.ts'
export type { SessionSummary } from './summaries.ts'
export type {
  FleetProcess, FleetSession, ReleaseAnswer, ReleaseHandler, ReleaseRequest, SessionFleet, SessionHolder, SessionPage,
  SessionPageRequest, SessionPosition,
} from './fleet.ts'
