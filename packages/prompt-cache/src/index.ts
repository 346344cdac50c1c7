export { PromptCache, type PromptCacheConfig } from './service.ts'
export { fingerprint, type FingerprintContext, type FingerprintedRequest } from './fingerprint.ts'
export { classifyBreak } from './classify.ts'
export { compareTools, type ToolChanges, type ToolReason } from './diff.ts'
export { BREAK_REASONS } from './types.ts'
export { sectionSpans } from './sections.ts'
export { DEFAULT_THRESHOLDS, isCacheDrop, resolveThresholds } from './thresholds.ts'
export { shortHash } from './hash.ts'
export { PromptCacheError, type PromptCacheErrorCode } from './errors.ts'
export type {
  BreakReason, CacheBreak, CacheObservation, ChangedFlag, DropThresholds, PromptCacheBreak, RequestFingerprint,
  SectionFingerprint, ToolFingerprint,
} from './types.ts'
export { PromptCache as default } from './service.ts'
