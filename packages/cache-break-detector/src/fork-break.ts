import type { Session } from 'dsh-session'
import { classifyBreak } from './classify.ts'
import type { CacheBreak, CacheObservation, RequestFingerprint } from './types.ts'

/** Where a child agent came from: its log opens with `fork/parent` (`dsh-agent-loop`'s `agent.fork()`). */
export interface ForkOrigin {
  parent: string
  mode: 'fork' | 'fresh' | 'side'
}

/** The fork a session's log opens with, if any. */
export function forkOrigin(session: Session): ForkOrigin | undefined {
  const first = session.event(1)
  return first?.type === 'fork/parent' ? { parent: first.data.parent, mode: first.data.mode } : undefined
}

/**
 * A child's first request against its parent's last. When the child's prefix is not the parent's (a `fresh`
 * child with its own persona or tools, another model, a tool subset) the child pays a cold prefix: that is said
 * as `fork_prefix_not_shared`, first, with the changes behind it (`model_changed`, `tools_schema_changed`,
 * `system_changed`, …) after it, whatever the cache read. A shared prefix is judged like any next request
 * (`found`, the ordinary comparison). Pure.
 */
export function forkBreak(parent: CacheObservation, child: CacheObservation, found: CacheBreak | undefined, origin: ForkOrigin): CacheBreak | undefined {
  if (samePrefix(parent.fingerprint, child.fingerprint)) return found
  // the changes and their details, as the ordinary comparison names them: compared as if everything cached had been lost
  const before = Math.max(1, parent.usage.cacheReadTokens, child.usage.cacheReadTokens + 1)
  const changes = classifyBreak({ ...parent, usage: { ...parent.usage, cacheReadTokens: before } }, child, { minDropRatio: Number.MIN_VALUE, minDropTokens: 0 })!
  const reasons = changes.allReasons.filter((reason) => reason !== 'likely_provider_ttl_or_eviction')
  return {
    ...changes,
    ...found,
    reason: 'fork_prefix_not_shared',
    previousCacheReadTokens: parent.usage.cacheReadTokens,
    allReasons: ['fork_prefix_not_shared', ...new Set([...reasons, ...found?.allReasons ?? []])],
    forkParent: origin.parent,
    forkMode: origin.mode,
  }
}

function samePrefix(a: RequestFingerprint, b: RequestFingerprint): boolean {
  return a.model === b.model && a.systemHash === b.systemHash && a.tools.length === b.tools.length
    && a.tools.every((tool, index) => tool.hash === b.tools[index]!.hash && tool.name === b.tools[index]!.name)
    && a.deferredTools.join(',') === b.deferredTools.join(',')
}
