import type { ToolUpdateMode } from '../types.ts'
import type { ModelBreakpointFacts } from './model-breakpoints.ts'
import type { ModelPrice } from './prices.ts'

/** The providers DSH knows the cache rules of; `generic` is any other endpoint. */
export type ProviderId = 'anthropic' | 'openai' | 'deepseek' | 'dashscope' | 'generic'

/**
 * How a provider fills its prompt cache: by itself for every prompt (`automatic-prefix`), or only up to
 * the `cache_control` breakpoints a request marks (`explicit-breakpoints`).
 */
export type CacheMechanism = 'automatic-prefix' | 'explicit-breakpoints'

/** One lifetime a provider documents for a cache entry. */
export interface CacheTtl {
  /** As the config key `cacheTtl` and the wire spell it (`5m`, `1h`, `24h`), or a label (`best-effort`). */
  name: string
  /** How long an unused entry lives, in seconds; undefined where the provider documents no bound. */
  seconds?: number
  /** Whether a cache hit starts the lifetime again. */
  refreshedOnHit: boolean
}

/** The documented cache rules of a provider. */
export interface CacheFacts {
  mechanism: CacheMechanism
  /** Cached tokens come in whole units of this many tokens (the granularity). */
  unitTokens: number
  /** The shortest prefix the provider caches for `model`, in tokens. */
  minimumTokens(model: string): number
  /** At most this many `cache_control` breakpoints per request (explicit breakpoints only). */
  maxBreakpoints?: number
  /** How many content blocks before a breakpoint the provider looks back for an earlier entry (explicit only). */
  lookbackBlocks?: number
  /** The lifetimes the provider documents, the default first. */
  ttls: readonly CacheTtl[]
  /** Names of `ttls` a model entry may choose with `cacheTtl` (empty: the provider offers no choice). */
  ttlChoices: readonly string[]
  /** Explicit breakpoints that only some models take (openai); such a model's lifetimes are these facts' own. */
  modelBreakpoints?: ModelBreakpointFacts
}

/** Where a fact of a profile comes from. */
export interface ProfileSource {
  /** Which facts the page documents. */
  facts: string
  url: string
}

/**
 * What DSH knows about one provider's prompt cache and wire, each fact taken from the provider's public
 * documentation (`sources`). Every model entry of an HTTP adapter resolves to one profile.
 */
export interface ProviderProfile {
  id: ProviderId
  /** The provider as messages name it (`Anthropic`). */
  name: string
  cache: CacheFacts
  /** The tool-update projection modes the provider's wire accepts. */
  toolUpdates: readonly ToolUpdateMode[]
  /**
   * The mode of an entry that sets none and whose adapter knows no better one for its id: `append` (measured
   * with bench:cache: it keeps the cached tool block across an addition, where `none` re-sends it from the
   * inserted tool on).
   */
  defaultToolUpdate: ToolUpdateMode
  /** Why a mode outside `toolUpdates` would be refused by the provider, for the boot-time refusal. */
  refusal: string
  /** Set where only some of the provider's models take the modes that need tool-change blocks. */
  toolChanges?: ToolChangeModels
  /** The usage fields the provider reports about its cache, as the wire names them. */
  usageFields: readonly string[]
  sources: readonly ProfileSource[]
  /** The provider's prices per model id, each with its page and date; a model left out has none (tokens only). */
  prices?: Readonly<Record<string, ModelPrice>>
}

/**
 * Which models of a provider take its mid-conversation tool-change blocks, where not every model does. A
 * model entry asking for one of `modes` on a model outside `models` gets `fallback` instead, said once at boot.
 */
export interface ToolChangeModels {
  /** The model ids that take the blocks (a model entry's `toolChanges` overrides it). */
  models: RegExp
  /** The modes that need the blocks. */
  modes: readonly ToolUpdateMode[]
  /** What such an entry gets on any other model. */
  fallback: ToolUpdateMode
  /** Which models the provider documents the blocks for, for the boot-time notice. */
  documented: string
}

/** How one served model's requests use the provider's cache. */
export interface ModelCachePolicy {
  profile: ProviderProfile
  /** The lifetime the model's requests ask for (its entry's `cacheTtl`), or the profile's default. */
  ttl: CacheTtl
  /** The shortest cacheable prefix for this model, in tokens. */
  minimumTokens: number
  /** Set when the model's requests place the profile's `modelBreakpoints` (OpenAI's `prompt_cache_breakpoint`). */
  explicitBreakpoints?: true
  /** Set when the model's entry turns the keepalive on (`keepalive` of an HTTP model entry). */
  keepalive?: KeepaliveSettings
}

/**
 * A model entry's keepalive: while a session waits, refresh its warm prefix before the lifetime ends, as long
 * as a ping costs less than the write it saves, within a spend cap per session and an idle bound.
 */
export interface KeepaliveSettings {
  /** Most a session may spend on pings, in USD; > 0. */
  maxSpend: number
  /** No ping once the session has been idle this long, in milliseconds (counted from its last request). */
  idleLimitMs: number
  /** When the session is near its compaction threshold, compact while the cache is warm instead of pinging. */
  compactWhenWarm: boolean
}
