export type {
  ChatMessage,
  GenerateOptions,
  LlmAdapter,
  StopReason,
  StreamEvent,
  ToolCall,
  ToolDefinition,
  ToolHistorySnapshot,
  ToolHistoryUpdate,
  ToolUpdateMessage,
  ToolUpdateMode,
  Usage,
} from './types.ts'
export { LlmRuntime, type LlmResponseInfo } from './runtime.ts'
export { LlmError, type LlmErrorCode } from './error.ts'
export { collect, type CollectedResponse } from './collect.ts'
export { deepFreeze, frozenJsonCopy, isDeepFrozen } from './freeze.ts'
export { addUsage, emptyUsage, normalizeUsage } from './usage.ts'
export {
  TOOL_UPDATE_MODES,
  projectToolUpdates,
  type ProjectedMessage,
  type ProjectionFallback,
  type ToolDeclaration,
  type ToolProjection,
  type ToolUpdateNotice,
} from './projection.ts'
export { LlmRuntime as default } from './runtime.ts'
