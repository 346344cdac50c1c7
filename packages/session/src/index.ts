export { default, SessionStore } from './store.ts'
export type { SessionStoreConfig } from './store.ts'
export type { SessionStoreApi } from './store-api.ts'
export { Session, restoreEvent } from './session.ts'
export type { EventSink, SessionOptions } from './session.ts'
export { SessionError } from './errors.ts'
export type { SessionErrorCode } from './errors.ts'
export type {
  CompactionReason, EventData, HeaderReason, KnownSessionEvent, PermissionAnswer, PermissionDecider, PermissionRule, RequestHeader, SessionEvent,
  SessionEventMap, TurnEndReason,
} from './events.ts'
export { DURABILITY_MODES } from './durability.ts'
export type { Durability } from './durability.ts'
export { readLines, MAX_LINE_BYTES } from './line-reader.ts'
export { WriteQueue } from './write-queue.ts'
export { SessionStoreBase, isSessionId } from './store-base.ts'
export type { LogLine, ReadLinesOptions } from './line-reader.ts'
export { defaultSessionRoot, dshStateFolder, stateHome, workingFolderKey } from './state-folder.ts'
export type { StateEnv } from './state-folder.ts'
