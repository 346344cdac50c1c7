import type { Usage } from 'dsh-core'
import { normalizeUsage } from 'dsh-llm'
import type { ProviderProfile } from './config.ts'

/** Usage as OpenAI-compatible servers report it; DeepSeek adds its own cache hit/miss counters. */
export interface WireUsage {
  prompt_tokens?: number | null
  completion_tokens?: number | null
  prompt_tokens_details?: { cached_tokens?: number | null; cache_write_tokens?: number | null; cache_creation_input_tokens?: number | null } | null
  prompt_cache_hit_tokens?: number | null
  prompt_cache_miss_tokens?: number | null
}

/**
 * Normalizes a Chat Completions usage record. Cache reads come from OpenAI's
 * `prompt_tokens_details.cached_tokens` or DeepSeek's `prompt_cache_hit_tokens`; input is
 * `prompt_tokens`, or hit + miss when a server reports only those. Cache writes come from OpenAI's
 * `prompt_tokens_details.cache_write_tokens` (GPT-5.6 and later) or DashScope's
 * `prompt_tokens_details.cache_creation_input_tokens` (explicit cache); other servers report none.
 */
export function toUsage(wire: WireUsage): Usage {
  const hit = count(wire.prompt_cache_hit_tokens)
  const miss = count(wire.prompt_cache_miss_tokens)
  const cached = count(wire.prompt_tokens_details?.cached_tokens) ?? hit
  const input = count(wire.prompt_tokens) ?? (hit !== undefined || miss !== undefined ? (hit ?? 0) + (miss ?? 0) : undefined)
  return normalizeUsage({
    inputTokens: input ?? 0,
    outputTokens: count(wire.completion_tokens) ?? 0,
    cacheReadTokens: cached ?? 0,
    cacheWriteTokens: count(wire.prompt_tokens_details?.cache_write_tokens) ?? count(wire.prompt_tokens_details?.cache_creation_input_tokens) ?? 0,
  })
}

/** Reads one usage record of a Chat Completions stream into `Usage`. */
export type UsageReader = (wire: WireUsage) => Usage

/** The usage reader of a profile: DashScope's own record on the dashscope profile, `toUsage` elsewhere. */
export function usageReaderOf(profile: ProviderProfile | undefined): UsageReader {
  return profile?.id === 'dashscope' ? usageFromDashScope : toUsage
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/**
 * DashScope's usage record (Alibaba Cloud Model Studio), native (`input_tokens`, `output_tokens`) or
 * OpenAI-compatible (`prompt_tokens`, `completion_tokens`). Both put cache figures in
 * `prompt_tokens_details`: `cached_tokens` read from the cache, `cache_creation_input_tokens` written to
 * an explicit cache.
 */
export interface DashScopeUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  prompt_tokens?: number | null
  completion_tokens?: number | null
  prompt_tokens_details?: { cached_tokens?: number | null; cache_creation_input_tokens?: number | null } | null
}

/** Normalizes DashScope usage; its prompt figure already includes cache reads and writes. */
export function usageFromDashScope(usage: DashScopeUsage | null | undefined): Usage {
  const details = usage?.prompt_tokens_details
  return normalizeUsage({
    inputTokens: usage?.input_tokens ?? usage?.prompt_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? usage?.completion_tokens ?? 0,
    cacheReadTokens: details?.cached_tokens ?? 0,
    cacheWriteTokens: details?.cache_creation_input_tokens ?? 0,
  })
}
