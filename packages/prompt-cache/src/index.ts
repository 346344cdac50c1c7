export { PromptCache, type PromptCacheConfig } from './service.ts'
export { fingerprint, type FingerprintContext, type FingerprintedRequest } from './fingerprint.ts'
export { classifyBreak } from './classify.ts'
export { compareTools, firstByteDifference, changedSection, type ToolChanges, type ToolReason } from './diff.ts'
export { BREAK_REASONS, RULE_REASONS } from './types.ts'
export { explainBreak, type ExplainOptions, type RuledObservation } from './explain.ts'
export { predictCacheRead, type CachePrediction, type PredictedRequest, type PredictionCause } from './predict.ts'
export { layoutOf, commonPrefix, type CacheMark, type CommonPrefix, type PrefixLayout } from './layout.ts'
export { ANTHROPIC_LOOKBACK_BLOCKS, checkRules, type CacheRules } from './rules.ts'
export { sectionSpans } from './sections.ts'
export { DEFAULT_THRESHOLDS, isCacheDrop, resolveThresholds } from './thresholds.ts'
export { shortHash } from './hash.ts'
export { PromptCacheError, type PromptCacheErrorCode } from './errors.ts'
export type {
  BreakReason, PrefixReason, RuleReason, CacheBreak, CacheObservation, ChangedFlag, DropThresholds, PromptCacheBreak, RequestFingerprint,
  SectionFingerprint, ToolFingerprint,
} from './types.ts'
export { PromptCache as default } from './service.ts'
