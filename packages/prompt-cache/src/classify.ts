import { changedSection, compareTools, firstByteDifference } from './diff.ts'
import { isCacheDrop, resolveThresholds } from './thresholds.ts'
import type { BreakReason, CacheBreak, CacheObservation, ChangedFlag, DropThresholds, RequestFingerprint } from './types.ts'

/**
 * Decides whether `current` broke the prompt cache `previous` had built, and why. A break is a fall in
 * cache-read tokens past both thresholds. The reason is the earliest change in the cached prefix —
 * model, then tools, then header flags, then the system prompt — and `allReasons` lists every change;
 * with no change at all the break is put down to the provider (`likely_ttl_or_eviction`). Pure.
 */
export function classifyBreak(
  previous: CacheObservation,
  current: CacheObservation,
  thresholds: Partial<DropThresholds> = {},
): CacheBreak | undefined {
  const limits = resolveThresholds(thresholds)
  const before = previous.usage.cacheReadTokens
  const after = current.usage.cacheReadTokens
  if (!isCacheDrop(before, after, limits)) return undefined

  const a = previous.fingerprint
  const b = current.fingerprint
  const reasons: BreakReason[] = []
  const details: Partial<CacheBreak> = {}
  if (a.model !== b.model) {
    reasons.push('model_changed')
    Object.assign(details, { previousModel: a.model, model: b.model })
  }
  const tools = compareTools(a.tools, b.tools)
  reasons.push(...tools.reasons)
  if (tools.addedTools.length) details.addedTools = tools.addedTools
  if (tools.removedTools.length) details.removedTools = tools.removedTools
  if (tools.changedTools.length) details.changedTools = tools.changedTools
  const flags = changedFlags(a, b)
  if (flags.length) {
    reasons.push('flags_changed')
    details.changedFlags = flags
  }
  if (a.systemHash !== b.systemHash) {
    reasons.push('system_changed')
    const offset = firstByteDifference(previous.system, current.system)
    if (offset !== undefined) {
      const section = changedSection(a.sections, b.sections, offset)
      Object.assign(details, section === undefined ? { offset } : { section, offset })
    }
  }
  if (!reasons.length) reasons.push('likely_ttl_or_eviction')

  return {
    reason: reasons[0]!,
    previousCacheReadTokens: before,
    currentCacheReadTokens: after,
    currentCacheWriteTokens: current.usage.cacheWriteTokens,
    allReasons: reasons,
    ...(previous.at !== undefined && current.at !== undefined ? { gapMs: Math.max(0, current.at - previous.at) } : {}),
    ...details,
  }
}

/**
 * Header flags that changed. Deferred-loading flags only reach the wire on history-capable routes, so
 * they do not count when both requests went to `none` routes; an unknown mode never counts as a change.
 */
function changedFlags(a: RequestFingerprint, b: RequestFingerprint): ChangedFlag[] {
  const flags: ChangedFlag[] = []
  const bothPlain = a.toolUpdateMode === 'none' && b.toolUpdateMode === 'none'
  const sameDeferred = a.deferredTools.length === b.deferredTools.length && a.deferredTools.every((name, index) => name === b.deferredTools[index])
  if (!sameDeferred && !bothPlain) flags.push('deferredTools')
  if (a.toolUpdateMode && b.toolUpdateMode && a.toolUpdateMode !== b.toolUpdateMode) flags.push('toolUpdateMode')
  return flags
}
