export type { GenerateOptions, LlmAdapter, StopReason, StreamEvent, ToolUpdateMode } from './types.ts'
export { LlmRuntime, type LlmRoute } from './runtime.ts'
export { LlmError } from './error.ts'
export { collect, type CollectedResponse } from './collect.ts'
export { normalizeUsage, usageFromDashScope } from './usage.ts'
export {
  PROFILES, PROVIDER_IDS, cachePolicy, isProviderId, type ModelPrice, type ProviderId, type ProviderProfile,
} from './profiles/index.ts'
export { projectToolUpdates, toolNoticeText, type ProjectedMessage, type ToolDeclaration, type ToolProjection } from './projection.ts'
export { LOOKBACK_BLOCKS, planCacheMarks, type CacheMarkPlan, type RequestMark } from './cache-marks.ts'
export { LlmRuntime as default } from './runtime.ts'
