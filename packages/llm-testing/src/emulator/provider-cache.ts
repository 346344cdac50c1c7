import { createHash } from 'node:crypto'
// Anthropic and DashScope look for an entry up to this many blocks before each breakpoint (dsh-llm's one constant).
import { LOOKBACK_BLOCKS } from 'dsh-llm'
import { openaiBreakpoints } from './openai-breakpoints.ts'
import { CHARS_PER_TOKEN, PrefixStore, TOKENS_PER_BLOCK, blockTokens } from './prefix-store.ts'
import type { RenderedMark, RenderedPrompt } from './prompt.ts'
import { blockChain, writeMarks, type MarkEntry } from './marks.ts'
import { slotCache } from './slots.ts'

/** The providers whose documented cache rules the emulator implements, one route each. */
export type EmulatedProfile = 'generic' | 'openai' | 'deepseek' | 'anthropic' | 'dashscope' | 'llamacpp'

/** What one request read from and wrote to the provider's cache, in tokens. */
export interface CacheOutcome {
  cached: number
  written: number
}

/** A provider's prompt cache: looks a rendered prompt up at time `now` (ms), then stores what the rules store. */
export interface ProviderCache {
  lookupAndStore(prompt: RenderedPrompt, now: number): CacheOutcome
  /** Tokens of a prefix of `chars` characters that these rules can serve at best (the ideal's unit and minimum), for `prompt`. */
  servable(chars: number, prompt?: RenderedPrompt): number
}

/** Characters OpenAI hashes to route a request: about its first 256 tokens. */
const ROUTING_CHARS = 256 * CHARS_PER_TOKEN
/** Breakpoints a request may carry (Anthropic, DashScope). */
export const MAX_MARKS = 4
const TTL_MS: Record<RenderedMark['ttl'], number> = { '5m': 5 * 60_000, '1h': 60 * 60_000, '30m': 30 * 60_000, '12h': 12 * 60 * 60_000 }

/**
 * The cache of `profile`, by its public documentation:
 * - generic (vLLM, llama.cpp): automatic, whole 64-token blocks, no minimum;
 * - deepseek: automatic, 64-token storage units (api-docs.deepseek.com/guides/kv_cache);
 * - openai: automatic from 1,024 tokens in 128-token steps, on the machine the first ~256 tokens and the
 *   `prompt_cache_key` route to (platform.openai.com/docs/guides/prompt-caching); a request with
 *   `prompt_cache_options.mode: 'explicit'` (GPT-5.6 and later) is cached only at its breakpoints
 *   (`openaiBreakpoints`);
 * - anthropic: only at `cache_control` breakpoints, each looking back `LOOKBACK_BLOCKS` blocks, 1,024 tokens at least,
 *   TTL 5 min or 1 h refreshed on a hit (docs.anthropic.com/en/docs/build-with-claude/prompt-caching);
 * - dashscope: with `cache_control` markers on message content parts, its explicit cache — the same
 *   breakpoint rules, 1,024 tokens, 5 min; a request without markers gets the implicit cache instead (the
 *   two are exclusive per request): automatic, from 256 tokens, hits not guaranteed — emulated as always
 *   hitting (help.aliyun.com/zh/model-studio/context-cache);
 * - llamacpp: a llama.cpp server's `slots` (`slotCache`), one prompt each, picked by `id_slot`.
 */
export function providerCache(profile: EmulatedProfile, slots = 1): ProviderCache {
  switch (profile) {
    case 'llamacpp': return slotCache(slots)
    case 'generic': return automatic(TOKENS_PER_BLOCK, 0)
    case 'deepseek': return automatic(64, 64)
    case 'openai': return byCacheMode(openaiBreakpoints(1024), automatic(128, 1024, true))
    case 'anthropic': return breakpoints(1024)
    case 'dashscope': return explicitOrImplicit(breakpoints(1024), automatic(TOKENS_PER_BLOCK, 256))
  }
}

function automatic(unit: number, minimum: number, routed = false): ProviderCache {
  const machines = new Map<string, PrefixStore>()
  const servable = (chars: number) => {
    const tokens = blockTokens(chars, unit)
    return tokens >= minimum ? tokens : 0
  }
  return {
    servable,
    lookupAndStore(prompt) {
      // one machine unless routed; a routed request reaches only the cache of the machine its hash picks
      const route = routed ? hash(`${prompt.text.slice(0, ROUTING_CHARS)}\u0000${prompt.cacheKey ?? ''}`) : ''
      let store = machines.get(route)
      if (!store) machines.set(route, store = new PrefixStore(unit))
      const cached = store.lookupAndStore(prompt.text)
      return { cached: cached >= minimum ? cached : 0, written: 0 }
    },
  }
}

function breakpoints(minimum: number): ProviderCache {
  // an entry per marked prefix: the hash of the blocks up to and including the marked one, and when it expires
  const entries = new Map<string, MarkEntry>()
  const tokensAt = (chars: number) => Math.floor(chars / CHARS_PER_TOKEN)
  return {
    servable: (chars) => tokensAt(chars) >= minimum ? tokensAt(chars) : 0,
    lookupAndStore(prompt, now) {
      const chain = blockChain(prompt)
      let cached = 0
      let hit: string | undefined
      for (const { block } of prompt.marks) {
        for (let at = block; at >= Math.max(0, block - LOOKBACK_BLOCKS); at--) {
          const entry = entries.get(chain[at]!)
          if (!entry || entry.expires < now) continue
          const tokens = tokensAt(prompt.blockEnds[at]!)
          if (tokens > cached) {
            cached = tokens
            hit = chain[at]
          }
          break
        }
      }
      if (hit) {
        const entry = entries.get(hit)!
        entry.expires = now + entry.ttl
      }
      return { cached, written: writeMarks(entries, prompt, chain, { cached, now, minimum, ttlMs: (ttl) => TTL_MS[ttl] }) }
    },
  }
}

function explicitOrImplicit(explicit: ProviderCache, implicit: ProviderCache): ProviderCache {
  return {
    servable: explicit.servable,
    lookupAndStore: (prompt, now) => (prompt.marks.length ? explicit : implicit).lookupAndStore(prompt, now),
  }
}

/** OpenAI's two modes: explicit breakpoints when the request asks for mode `explicit`, the automatic cache otherwise. */
function byCacheMode(explicit: ProviderCache, automatic: ProviderCache): ProviderCache {
  const rules = (prompt?: RenderedPrompt) => (prompt?.cacheMode === 'explicit' ? explicit : automatic)
  return {
    servable: (chars, prompt) => rules(prompt).servable(chars, prompt),
    lookupAndStore: (prompt, now) => rules(prompt).lookupAndStore(prompt, now),
  }
}

function hash(text: string): string {
  return createHash('sha256').update(text).digest('base64')
}
