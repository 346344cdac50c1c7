import type { Usage } from 'dsh-core'
import { normalizeUsage } from 'dsh-llm'

/** Usage fields of `message_start` and `message_delta` events. */
export interface WireUsage {
  input_tokens?: number | null
  output_tokens?: number | null
  cache_read_input_tokens?: number | null
  cache_creation_input_tokens?: number | null
}

/** Folds the usage reports of one stream: each field keeps its latest reported value (deltas are cumulative). */
export class UsageAccumulator {
  private readonly fields: WireUsage = {}
  private seen = false

  add(wire: WireUsage | null | undefined): void {
    if (!wire) return
    for (const key of ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'] as const) {
      const value = wire[key]
      if (typeof value === 'number' && Number.isFinite(value)) {
        this.fields[key] = value
        this.seen = true
      }
    }
  }

  /** Undefined when the stream reported no usage at all. */
  result(): Usage | undefined {
    return this.seen ? toUsage(this.fields) : undefined
  }
}

/**
 * Normalizes Anthropic usage: `input_tokens` excludes cached tokens there, while DSH's `inputTokens`
 * counts every prompt token, so input = input + cache reads + cache writes.
 */
export function toUsage(wire: WireUsage): Usage {
  const read = wire.cache_read_input_tokens ?? 0
  const write = wire.cache_creation_input_tokens ?? 0
  return normalizeUsage({
    inputTokens: (wire.input_tokens ?? 0) + read + write,
    outputTokens: wire.output_tokens ?? 0,
    cacheReadTokens: read,
    cacheWriteTokens: write,
  })
}
