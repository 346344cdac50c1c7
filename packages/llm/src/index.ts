export type { GenerateOptions, LlmAdapter, StopReason, StreamEvent, ToolUpdateMode } from './types.ts'
export { LlmRuntime, type LlmResponseInfo, type LlmRoute } from './runtime.ts'
export { LlmError, type LlmErrorCode } from './error.ts'
export { collect, type CollectOptions, type CollectedResponse } from './collect.ts'
export { addUsage, emptyUsage, normalizeUsage, usageFromDashScope, type DashScopeUsage } from './usage.ts'
export {
  ANTHROPIC_TOOL_CHANGE_MODELS, PROFILES, PROVIDER_IDS, cachePolicy, defaultCachePolicy, isProviderId, providerOfEndpoint,
  resolveProfile, toolUpdateRefusal, type CacheFacts, type CacheMechanism, type CacheTtl,
  type ModelCachePolicy, type ProfileSource, type ProviderId, type ProviderProfile, type ToolChangeModels,
} from './profiles/index.ts'
export { projectToolUpdates, toolNoticeText, type ProjectedMessage, type ToolDeclaration, type ToolProjection } from './projection.ts'
export { LOOKBACK_BLOCKS, planCacheMarks, type CacheMarkPlan, type MarkableRequest, type RequestMark } from './cache-marks.ts'
export { AdapterPlugin } from './adapter-plugin.ts'
export { LlmRuntime as default } from './runtime.ts'
