import Schema from 'schemastery'
import { defineEvents, optional, record } from 'dsh-session'
import type { PromptCacheBreak } from './types.ts'

declare module 'dsh-session' {
  interface SessionEventMap {
    'prompt-cache/break': PromptCacheBreak
  }
}

const count = Schema.natural()
const figure = Schema.number()
const names = Schema.array(Schema.string()).description('an array of strings')
const word = Schema.string().min(1)

/**
 * The data of `prompt-cache/break`, as every version of the detector logged it: the reasons are checked as
 * words, not against today's list (logs from before 2026-12-01 carry `tools_added`, `flags_changed`…), and
 * fields this version does not know are accepted as JSON. `changedToolNames` is absent from those logs.
 */
export const PROMPT_CACHE_EVENTS = defineEvents({
  'prompt-cache/break': record({
    turn: count,
    step: count,
    reason: word,
    previousCacheReadTokens: count,
    currentCacheReadTokens: count,
    currentCacheWriteTokens: count,
    changedToolNames: optional(names),
    allReasons: Schema.array(word).description('an array of reasons'),
    gapMs: optional(figure),
    previousModel: optional(Schema.string()),
    model: optional(Schema.string()),
    addedTools: optional(names),
    removedTools: optional(names),
    changedTools: optional(names),
    changedFlags: optional(names),
    section: optional(Schema.string()),
    offset: optional(count),
    profile: optional(Schema.string()),
    predictedCacheReadTokens: optional(figure),
    ttlMs: optional(figure),
    provider: optional(record({
      reason: optional(word),
      missedTokens: optional(count),
      pending: optional(Schema.const(true).description('true or absent')),
      responseId: word,
    }, { open: true }).description("the provider's verdict")),
    agreement: optional(Schema.union(['agree', 'disagree', 'dsh-only', 'provider-only'])),
  }, { open: true }),
})
