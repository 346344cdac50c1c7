import type { BreakReason, CacheBreak, ProviderView } from './types.ts'

/**
 * Anthropic's `cache_miss_reason` types and the DSH reasons each corresponds to: the one table the agreement
 * is decided by. `messages_changed` has none (DSH does not fingerprint the history; its fall is
 * `likely_provider_ttl_or_eviction` or `provider_miss`, which name no cause), `unavailable` is no diagnosis
 * at all, and `previous_message_not_found` (the provider's record of the previous request is gone) goes with
 * an expired cache.
 */
export const PROVIDER_REASONS: Readonly<Record<string, readonly BreakReason[]>> = Object.freeze({
  model_changed: ['model_changed'],
  tools_changed: ['tools_order_changed', 'tools_schema_changed', 'cache_control_changed'],
  system_changed: ['system_changed'],
  messages_changed: [],
  previous_message_not_found: ['ttl_expired'],
  unavailable: [],
})

/** DSH reasons that name no cause: the fall was seen, nothing explains it. */
const NO_CAUSE: readonly BreakReason[] = ['provider_miss', 'likely_provider_ttl_or_eviction']

/** How DSH's reason and the provider's compare on one break. */
export type Agreement = 'agree' | 'disagree' | 'dsh-only' | 'provider-only'

/** Whether DSH's provider table knows `reason` (else the viewer shows it as an unknown provider reason). */
export function knownProviderReason(reason: string): boolean {
  return Object.hasOwn(PROVIDER_REASONS, reason)
}

/**
 * The agreement of a break and the provider's verdict on the same request. Undefined when the provider has no
 * view (no verdict, a pending one, or `unavailable`) or when neither names a cause. Both name one: `agree` when
 * the provider's reason corresponds to one of DSH's reasons (`PROVIDER_REASONS`), else `disagree` (a reason DSH
 * does not know included); one alone: `dsh-only` / `provider-only`.
 */
export function agreementOf(found: Pick<CacheBreak, 'reason' | 'allReasons'>, provider: ProviderView | undefined): Agreement | undefined {
  if (!provider || provider.pending || provider.reason === 'unavailable') return undefined
  const dsh = found.allReasons.filter((reason) => !NO_CAUSE.includes(reason))
  const theirs = provider.reason
  if (!dsh.length) return theirs === undefined ? undefined : 'provider-only'
  if (theirs === undefined) return 'dsh-only'
  const matches = PROVIDER_REASONS[theirs] ?? []
  return dsh.some((reason) => matches.includes(reason)) ? 'agree' : 'disagree'
}

/** Both sides of a break in one line, for the warning of a disagreement (or a cause only the provider names). */
export function bothSides(found: CacheBreak, provider: ProviderView): string {
  const where = [found.section && `section ${found.section}`, found.offset !== undefined && `byte ${found.offset}`, found.changedToolNames.length && `tools ${found.changedToolNames.join(', ')}`]
    .filter(Boolean).join(', ')
  const theirs = provider.reason === undefined ? 'no divergence' : knownProviderReason(provider.reason) ? provider.reason : `${provider.reason} (unknown provider reason)`
  const missed = provider.missedTokens !== undefined ? `, ${provider.missedTokens} tokens missed` : ''
  return `DSH says ${found.allReasons.join(', ')}${where ? ` (${where})` : ''}; the provider says ${theirs}${missed}`
}
