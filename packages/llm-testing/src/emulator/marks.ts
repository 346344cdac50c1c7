import { createHash } from 'node:crypto'
import { CHARS_PER_TOKEN } from './prefix-store.ts'
import type { RenderedMark, RenderedPrompt } from './prompt.ts'

/** The hash of the blocks up to and including each block, in prompt order: one cache key per block end. */
export function blockChain(prompt: RenderedPrompt): string[] {
  const chain: string[] = []
  let previous = ''
  let start = 0
  for (const end of prompt.blockEnds) {
    chain.push(previous = createHash('sha256').update(previous + prompt.text.slice(start, end)).digest('base64'))
    start = end
  }
  return chain
}

/** A cache entry of a marked prefix: when it expires, and the lifetime a hit starts again. */
export interface MarkEntry {
  expires: number
  ttl: number
}

/**
 * Writes an entry for each of `prompt`'s marks that reaches `minimum` tokens (moved to the end of `entries`,
 * so insertion order is recency) and returns the tokens written: what the longest newly written prefix adds
 * beyond the `cached` read.
 */
export function writeMarks(
  entries: Map<string, MarkEntry>,
  prompt: RenderedPrompt,
  chain: readonly string[],
  { cached, now, minimum, ttlMs }: { cached: number; now: number; minimum: number; ttlMs: (ttl: RenderedMark['ttl']) => number },
): number {
  let written = 0
  for (const { block, ttl } of prompt.marks) {
    const tokens = Math.floor(prompt.blockEnds[block]! / CHARS_PER_TOKEN)
    if (tokens < minimum) continue
    const key = chain[block]!
    const known = entries.get(key)
    if (!known || known.expires < now) written = Math.max(written, tokens - cached)
    entries.delete(key)
    entries.set(key, { expires: Math.max(known?.expires ?? 0, now + ttlMs(ttl)), ttl: ttlMs(ttl) })
  }
  return written
}
