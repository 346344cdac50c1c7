import { CHARS_PER_TOKEN } from './prefix-store.ts'
import type { RenderedPrompt } from './prompt.ts'
import type { ProviderCache } from './provider-cache.ts'

/**
 * The share of a new prompt a slot's cached prompt must share for the emulated server to pick that slot for
 * a request that names none (llama.cpp's `--slot-prompt-similarity`, default 0.10).
 */
export const SLOT_SIMILARITY = 0.1

/**
 * A llama.cpp server's slots (`-np N`, tools/server/README.md): each slot holds the KV of the one prompt it
 * ran last, and a request reuses the prefix it shares with its slot's prompt (`cache_prompt`, on by default),
 * per token. A request's `id_slot` picks its slot; without one (or `-1`) the server takes the slot whose
 * prompt shares the longest prefix when that is at least `SLOT_SIMILARITY` of the new prompt, else the slot
 * used least recently. The request's prompt then replaces the slot's: one slot, one line of conversation.
 * (The server's RAM prompt cache, `--cache-ram`, which can bring an evicted prompt back, is not emulated.)
 */
export function slotCache(slots: number): ProviderCache & { lastSlot?: number } {
  const held: { text: string; used: number }[] = Array.from({ length: slots }, () => ({ text: '', used: 0 }))
  let clock = 0
  const cache: ProviderCache & { lastSlot?: number } = {
    servable: (chars) => Math.floor(chars / CHARS_PER_TOKEN),
    lookupAndStore(prompt: RenderedPrompt) {
      const index = prompt.slot !== undefined && prompt.slot >= 0 ? prompt.slot : pick(held, prompt.text)
      if (index >= slots) throw new Error(`id_slot ${index}, but the server has ${slots} slot(s) (0 to ${slots - 1})`)
      const slot = held[index]!
      const shared = commonPrefix(slot.text, prompt.text)
      slot.text = prompt.text
      slot.used = ++clock
      cache.lastSlot = index
      return { cached: Math.floor(shared / CHARS_PER_TOKEN), written: 0 }
    },
  }
  return cache
}

/** The slot a request without `id_slot` runs on (see `slotCache`). */
function pick(held: readonly { text: string; used: number }[], text: string): number {
  let best = -1
  let longest = 0
  held.forEach((slot, index) => {
    const shared = commonPrefix(slot.text, text)
    if (shared > longest) [best, longest] = [index, shared]
  })
  if (best >= 0 && longest >= SLOT_SIMILARITY * text.length) return best
  return held.reduce((oldest, slot, index) => (slot.used < held[oldest]!.used ? index : oldest), 0)
}

function commonPrefix(a: string, b: string): number {
  const end = Math.min(a.length, b.length)
  let at = 0
  while (at < end && a.charCodeAt(at) === b.charCodeAt(at)) at++
  return at
}
