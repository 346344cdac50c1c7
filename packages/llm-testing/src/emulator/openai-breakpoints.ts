import { CHARS_PER_TOKEN } from './prefix-store.ts'
import type { RenderedPrompt } from './prompt.ts'
import { blockChain, writeMarks, type MarkEntry } from './marks.ts'
import type { ProviderCache } from './provider-cache.ts'

/** Explicit breakpoints OpenAI writes per request (GPT-5.6 and later; more are refused here). */
export const MAX_OPENAI_BREAKPOINTS = 4
/** A read matches an entry among this many latest breakpoints of the conversation, without a block lookback. */
export const OPENAI_LOOKBACK_BREAKPOINTS = 80
/** The lifetimes a breakpoint or `prompt_cache_options.ttl` may name. */
export const OPENAI_BREAKPOINT_TTLS = ['30m', '12h'] as const
export type OpenAIBreakpointTtl = typeof OPENAI_BREAKPOINT_TTLS[number]
const TTL_MS: Record<string, number> = { '30m': 30 * 60_000, '12h': 12 * 60 * 60_000 }

/**
 * OpenAI's explicit cache (`prompt_cache_options.mode: 'explicit'`): only the prefix up to each breakpoint is
 * written, per token (a breakpoint is not rounded to a block), from `minimum` tokens; a read takes the longest
 * prefix of the request that ends where one of the conversation's latest 80 breakpoints ended and has not
 * expired; a hit starts its lifetime again. Writes are what the request adds beyond what it read. A
 * breakpoint marks the end of a message's content part, never a tool declaration, so the most these rules
 * can serve of a prefix is up to the last message block within it: a prefix that ends among the tools
 * (a tool joined) cannot be served at all.
 */
export function openaiBreakpoints(minimum: number): ProviderCache {
  // insertion order is recency: a written breakpoint moves to the end, the oldest beyond 80 are dropped
  const entries = new Map<string, MarkEntry>()
  const tokensAt = (chars: number) => Math.floor(chars / CHARS_PER_TOKEN)
  return {
    servable(chars, prompt) {
      const toolsEnd = prompt?.tools.at(-1)?.end ?? 0
      const end = prompt ? prompt.blockEnds.findLast((blockEnd) => blockEnd <= chars && blockEnd > toolsEnd) ?? 0 : chars
      return tokensAt(end) >= minimum ? tokensAt(end) : 0
    },
    lookupAndStore(prompt: RenderedPrompt, now: number) {
      const chain = blockChain(prompt)
      let cached = 0
      for (let at = chain.length - 1; at >= 0; at--) {
        const entry = entries.get(chain[at]!)
        if (!entry || entry.expires < now) continue
        cached = tokensAt(prompt.blockEnds[at]!)
        entry.expires = now + entry.ttl
        break
      }
      const written = writeMarks(entries, prompt, chain, { cached, now, minimum, ttlMs: (ttl) => TTL_MS[ttl] ?? TTL_MS['30m']! })
      for (const oldest of entries.keys()) {
        if (entries.size <= OPENAI_LOOKBACK_BREAKPOINTS) break
        entries.delete(oldest)
      }
      return { cached, written }
    },
  }
}
