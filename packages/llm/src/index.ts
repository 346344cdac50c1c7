export type { GenerateOptions, LlmAdapter, StopReason, StreamEvent, ToolUpdateMode } from './types.ts'
export { LlmError } from './error.ts'
export { collect } from './collect.ts'
export { normalizeUsage } from './usage.ts'
export {
  PROFILES, PROVIDER_IDS, cachePolicy, type ProviderId,
} from './profiles/index.ts'
export { projectToolUpdates, toolNoticeText, type ProjectedMessage } from './projection.ts'
export { LOOKBACK_BLOCKS, planCacheMarks } from './cache-marks.ts'
export { LlmRuntime as default } from './runtime.ts'
