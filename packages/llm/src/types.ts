import type { ChatMessage, ReadonlyList, ToolCall, ToolHistorySnapshot, ToolSchema, Usage } from 'dsh-core'

import type { RequestMark } from './cache-marks.ts'
import type { ModelCachePolicy } from './profiles/types.ts'
import type { ModelPrice } from './profiles/prices.ts'

/**
 * How a route takes tool changes: `none` declares the effective tools; `append` keeps the sequence's
 * declaration order and appends tools that join; `addition-only` and `in-history` announce changes in
 * history with tool-update blocks (routes that take them only).
 */
export type ToolUpdateMode = 'none' | 'addition-only' | 'in-history' | 'append'

/** What a caller asks a model for. Deep-frozen by `llm.stream()` before any adapter sees it. */
export interface GenerateOptions {
  model: string
  system: string
  tools: readonly ToolSchema[]
  /**
   * The history: an array, or the session's `FrozenList` (the loop sends that, so a step does not copy
   * the conversation). Read it by `length`, `at()` and iteration.
   */
  messages: ReadonlyList<ChatMessage>
  /** Tools registered as deferred (shouldDefer) that supporting routes may declare with deferred loading. */
  deferredTools?: string[]
  toolHistory?: ToolHistorySnapshot
  maxTokens?: number
  /**
   * Which session line the request belongs to: its own session id and, for a forked child (id
   * `<parent id>~<n>`), its parent's and how it was forked (`fork` and `side` continue the parent's prefix,
   * `fresh` starts its own). Routes that pin requests to a local engine's slot or session (`affinity` on a
   * model entry of dsh-llm-openai) read it; every other route ignores it.
   */
  lineage?: { session: string; parent?: string; mode?: 'fork' | 'fresh' | 'side' }
  /**
   * The id of the previous response of this request's sequence, `null` on a sequence's first request; absent
   * when the caller keeps no sequence (a compaction, a direct call). A route whose provider compares requests
   * itself (Anthropic's cache diagnostics) sends it and answers with a `verdict`; others ignore it.
   */
  previousResponseId?: string | null
  signal?: AbortSignal
}

/**
 * The provider's own verdict on a request's cache use (Anthropic's cache diagnostics), for a request that
 * carried `previousResponseId`.
 */
interface ProviderVerdict {
  /** The response's id: the next request of the sequence names it. */
  responseId: string
  /**
   * Why the provider could not reuse the previous request's prefix, as it came (`model_changed`,
   * `system_changed`, `tools_changed`, `messages_changed`, `previous_message_not_found`, `unavailable`, or a
   * reason DSH does not know yet); absent when it found no divergence.
   */
  reason?: string
  /** Tokens the provider says would have been read from cache had the prefix matched. */
  missedTokens?: number
  /** The provider answered before its comparison finished: no reason yet. */
  pending?: true
}

/** One item of a model stream. A stream ends with exactly one `done`. */
export type StreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool-call'; call: ToolCall }
  | { type: 'usage'; usage: Usage }
  /** The provider's cache verdict on this request (at most one, before `done`). */
  | { type: 'verdict'; verdict: ProviderVerdict }
  | { type: 'done'; stopReason: StopReason }

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'cancelled'

/** A provider route: the models it serves and how it streams them. */
export interface LlmAdapter {
  /** Provider id, e.g. `scripted`, `openai`, `anthropic`. */
  provider: string
  /** Model ids this adapter serves. */
  models: string[]
  /** Tool-update capability of this route (default `none`). */
  toolUpdate?: ToolUpdateMode | ((model: string) => ToolUpdateMode)
  /** Context window of a served model, in tokens (prompt and output together); undefined when unknown. */
  contextWindow?: number | ((model: string) => number | undefined)
  /** How a served model's requests use the provider's prompt cache; the generic profile when undefined. */
  cachePolicy?(model: string): ModelCachePolicy | undefined
  /** What a served model's tokens cost (its profile's price, or its entry's); undefined: no price, tokens only. */
  price?(model: string): ModelPrice | undefined
  /**
   * The cache markers the request for `options` carries on the wire, as `planCacheMarks` places them from
   * the model's cache policy; none when undefined.
   */
  cacheMarks?(options: GenerateOptions): readonly RequestMark[]
  /**
   * The request field a served model's route pins a session line by (a local engine's slot or session,
   * e.g. `id_slot`), when its entry names one; the agent loop then sets `GenerateOptions.lineage`.
   */
  affinity?(model: string): string | undefined
  stream(options: GenerateOptions): AsyncIterable<StreamEvent>
}
