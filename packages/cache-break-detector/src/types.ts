import type { Usage } from 'dsh-core'
import type { ToolUpdateMode } from 'dsh-llm'

/** Where a section sits in the rendered prompt: UTF-8 byte offsets, `end` exclusive. */
export interface SectionFingerprint {
  name: string
  hash: string
  start: number
  end: number
}

/** A tool declaration by name and the hash of its serialized bytes (name, description, parameters). */
export interface ToolFingerprint {
  name: string
  hash: string
}

/** What decides whether a provider can reuse the cached front of a request; small and JSON-safe. */
export interface RequestFingerprint {
  model: string
  /** Hash of the rendered system prompt. */
  systemHash: string
  /** UTF-8 length of the rendered system prompt. */
  systemBytes: number
  /** The prompt's sections with their spans; absent when the sections behind the text are unknown. */
  sections?: SectionFingerprint[]
  /** Declared tools, in request order. */
  tools: ToolFingerprint[]
  /** Tools the request asks supporting routes to declare with deferred loading, in request order. */
  deferredTools: string[]
  /** The route's tool-update mode, when known. */
  toolUpdateMode?: ToolUpdateMode
}

/** One request and what its response reported, as `classifyBreak` compares them. */
export interface CacheObservation {
  fingerprint: RequestFingerprint
  usage: Pick<Usage, 'cacheReadTokens' | 'cacheWriteTokens'>
  /** The rendered system prompt the fingerprint was taken of; locates the first changed byte. */
  system: string
  /** When the request was dispatched (ms since the epoch). */
  at?: number
}

/** When a fall in cache reads counts as a break. */
export interface DropThresholds {
  /** Least fall, as a fraction of the previous read (0 < x ≤ 1). */
  minDropRatio: number
  /** Least fall in tokens (≥ 0). */
  minDropTokens: number
}

/**
 * Why the cached prefix stopped matching, earliest in the prefix first: the reasons of the
 * `prompt_cache_break` event the specification asks for
 * (.agents/notes/implemented/feature/2026-11-30-prompt-cache-break-detector.md). A tool added to or
 * removed from the list changes the tools schema (`tools_schema_changed`, with `addedTools` / `removedTools`); a change of the header flags that
 * decide how tools are cached on the wire (deferred loading, tool-update mode) is `cache_control_changed`.
 */
export type BreakReason = PrefixReason | RuleReason

/** The specification's reasons: a change in the cached prefix, or (nothing changed) the provider. */
export type PrefixReason =
  | 'model_changed'
  | 'tools_order_changed'
  | 'tools_schema_changed'
  | 'cache_control_changed'
  | 'system_changed'
  | 'likely_provider_ttl_or_eviction'

/** Every reason of the specification, in prefix order. */
export const BREAK_REASONS: readonly PrefixReason[] = [
  'model_changed', 'tools_order_changed', 'tools_schema_changed', 'cache_control_changed', 'system_changed', 'likely_provider_ttl_or_eviction',
]

/**
 * Reasons found by predicting the read from the route's cache rules (`explainBreak`): the idle gap passed
 * the TTL, the prefix is shorter than the minimum, an explicit cache had no breakpoint in reach, or the
 * prediction said hit and nothing explains the miss.
 */
export type RuleReason = 'ttl_expired' | 'below_minimum' | 'no_breakpoint' | 'provider_miss'

/** Every rule reason. */
export const RULE_REASONS: readonly RuleReason[] = ['ttl_expired', 'below_minimum', 'no_breakpoint', 'provider_miss']

/** A header flag whose change can move the cached prefix. */
export type ChangedFlag = 'deferredTools' | 'toolUpdateMode'

/** What `classifyBreak` found: the reason, the figures, and the details of every change seen. */
export interface CacheBreak {
  reason: BreakReason
  previousCacheReadTokens: number
  currentCacheReadTokens: number
  currentCacheWriteTokens: number
  /**
   * Tools behind a tools reason, in current request order, then removed names in previous order:
   * added, removed, redefined, and (on a reorder) names whose place among the shared names moved.
   */
  changedToolNames: string[]
  /** Every reason that applies, `reason` first. */
  allReasons: BreakReason[]
  /** Time between the two requests, when both dispatch times are known. */
  gapMs?: number
  /** model_changed */
  previousModel?: string
  model?: string
  /** tools_schema_changed: names added, removed, and redefined (same name, other bytes), in request order. */
  addedTools?: string[]
  removedTools?: string[]
  changedTools?: string[]
  /** cache_control_changed: the header flags that changed. */
  changedFlags?: ChangedFlag[]
  /** system_changed: the section holding the first changed byte (absent when sections are unknown). */
  section?: string
  /** system_changed: UTF-8 byte offset of the first difference in the rendered prompt. */
  offset?: number
  /** With cache rules: the profile they come from. */
  profile?: string
  /** With cache rules: the cache read they predicted for this request. */
  predictedCacheReadTokens?: number
  /** ttl_expired: the profile's TTL the idle gap passed. */
  ttlMs?: number
}

/** The provider's own verdict on the request of a break (Anthropic's cache diagnostics), as it came. */
export interface ProviderView {
  /** Its `cache_miss_reason`, a reason DSH does not know included; absent: it found no divergence. */
  reason?: string
  /** Tokens it says would have been read from cache had the prefix matched. */
  missedTokens?: number
  /** It answered before its comparison finished. */
  pending?: true
  /** The response it answered with. */
  responseId: string
}

/**
 * A break as logged (`prompt-cache/break`) and emitted: where it happened and what was found — DSH's view
 * (`reason`, `section`, `offset`, `changedToolNames`) and, on a route that asks for it, the provider's.
 */
export interface PromptCacheBreak extends CacheBreak {
  turn: number
  step: number
  /** The provider's verdict on the same request; absent on routes whose provider gives none. */
  provider?: ProviderView
  /**
   * Whether the two views name the same cause (`PROVIDER_REASONS`), or only one names one; absent when the
   * provider gave no verdict, or neither names a cause.
   */
  agreement?: 'agree' | 'disagree' | 'dsh-only' | 'provider-only'
}
