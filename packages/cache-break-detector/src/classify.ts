import { systemDiff } from 'dsh-system-prompt/bytes'
import { compareTools, type ToolChanges } from './diff.ts'
import { isCacheDrop, resolveThresholds } from './thresholds.ts'
import type { BreakReason, CacheBreak, CacheObservation, ChangedFlag, DropThresholds, RequestFingerprint } from './types.ts'

/**
 * Decides whether `current` broke the prompt cache `previous` had built, and why. A break is a fall in
 * cache-read tokens past both thresholds. The reason is the earliest change in the cached prefix —
 * model, then tools, then header flags, then the system prompt — and `allReasons` lists every change;
 * with no change at all the break is put down to the provider (`likely_provider_ttl_or_eviction`). Pure.
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
  for (const reason of tools.reasons) {
    const logged: BreakReason = reason === 'tools_order_changed' ? reason : 'tools_schema_changed'
    if (!reasons.includes(logged)) reasons.push(logged)
  }
  if (tools.addedTools.length) details.addedTools = tools.addedTools
  if (tools.removedTools.length) details.removedTools = tools.removedTools
  if (tools.changedTools.length) details.changedTools = tools.changedTools
  const flags = changedFlags(a, b)
  if (flags.length) {
    reasons.push('cache_control_changed')
    details.changedFlags = flags
  }
  if (a.systemHash !== b.systemHash) {
    reasons.push('system_changed')
    // where and why, as `dsh-prompt diff` says it: one rule for both (a separator belongs to the section after it)
    const found = systemDiff({ system: previous.system, sections: a.sections }, { system: current.system, sections: b.sections })
    if (found) Object.assign(details, found.section === undefined ? { offset: found.offset } : { section: found.section, offset: found.offset })
  }
  if (!reasons.length) reasons.push('likely_provider_ttl_or_eviction')

  return {
    reason: reasons[0]!,
    previousCacheReadTokens: before,
    currentCacheReadTokens: after,
    currentCacheWriteTokens: current.usage.cacheWriteTokens,
    changedToolNames: changedToolNames(a, b, tools),
    allReasons: reasons,
    ...(previous.at !== undefined && current.at !== undefined ? { gapMs: Math.max(0, current.at - previous.at) } : {}),
    ...details,
  }
}

/** Names behind the tools reasons: current-order names added, redefined or moved, then removed names. */
function changedToolNames(a: RequestFingerprint, b: RequestFingerprint, tools: ToolChanges): string[] {
  const after = new Set(b.tools.map((tool) => tool.name))
  const before = new Set(a.tools.map((tool) => tool.name))
  const sharedBefore = a.tools.filter((tool) => after.has(tool.name)).map((tool) => tool.name)
  const sharedAfter = b.tools.filter((tool) => before.has(tool.name)).map((tool) => tool.name)
  const moved = new Set(sharedAfter.filter((name, index) => sharedBefore[index] !== name))
  const named = new Set([...tools.addedTools, ...tools.changedTools, ...moved])
  return [...b.tools.map((tool) => tool.name).filter((name) => named.has(name)), ...tools.removedTools]
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
