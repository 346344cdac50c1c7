export type {
  GenerateOptions,
  LlmAdapter,
  StopReason,
  StreamEvent,
  ToolUpdateMode,
} from './types.ts'
export { LlmRuntime, type LlmResponseInfo, type LlmRoute } from './runtime.ts'
export { LlmError, type LlmErrorCode } from './error.ts'
export { collect, type CollectOptions, type CollectedResponse } from './collect.ts'
export { addUsage, emptyUsage, normalizeUsage, usageFromDashScope, usageFromGemini, type DashScopeUsage, type GeminiUsageMetadata } from './usage.ts'
export {
  TOOL_UPDATE_MODES,
  projectToolUpdates,
  type ProjectedMessage,
  type ProjectionFallback,
  type ToolDeclaration,
  type ToolProjection,
  type ToolUpdateNotice,
} from './projection.ts'
export { AdapterPlugin } from './adapter-plugin.ts'
export { LlmRuntime as default } from './runtime.ts'
