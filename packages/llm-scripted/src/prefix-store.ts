import { createHash } from 'node:crypto'

/** The emulator counts a token per this many characters of the rendered prompt. */
export const CHARS_PER_TOKEN = 4
/** Caching granularity of the generic route: a prefix is cached in whole blocks of this many tokens. */
export const TOKENS_PER_BLOCK = 64

/** Tokens of a rendered prompt of `chars` characters. */
export const tokensOf = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN)

/** Tokens of the whole blocks of `tokensPerBlock` within the first `chars` characters (the cacheable part of that prefix). */
export const blockTokens = (chars: number, tokensPerBlock = TOKENS_PER_BLOCK) =>
  Math.floor(chars / (CHARS_PER_TOKEN * tokensPerBlock)) * tokensPerBlock

/**
 * The prompt cache of an automatic prefix-caching provider: every whole block of every prompt seen is
 * stored under a hash that chains all blocks before it (as vLLM's prefix cache does), so a block is found
 * only when its entire prefix matches. Lookup and insertion cost one hash per block of the new prompt.
 */
export class PrefixStore {
  private readonly blocks = new Set<string>()
  private readonly charsPerBlock: number

  /** `onStored` hears the chained hash of each block stored for the first time (to keep them, e.g. in a file). */
  constructor(readonly tokensPerBlock = TOKENS_PER_BLOCK, private readonly onStored?: (hash: string) => void) {
    this.charsPerBlock = CHARS_PER_TOKEN * tokensPerBlock
  }

  /** Takes back blocks stored earlier, by the chained hashes `onStored` heard. */
  restore(hashes: Iterable<string>): void {
    for (const hash of hashes) this.blocks.add(hash)
  }

  /** Cached tokens of `prompt`: the longest stored prefix, in whole blocks. Then stores the prompt's blocks. */
  lookupAndStore(prompt: string): number {
    let chain = ''
    let hit = true
    let cached = 0
    for (let end = this.charsPerBlock; end <= prompt.length; end += this.charsPerBlock) {
      chain = createHash('sha256').update(chain).update(prompt.slice(end - this.charsPerBlock, end)).digest('base64')
      if (hit && this.blocks.has(chain)) cached += this.tokensPerBlock
      else {
        hit = false
        if (!this.blocks.has(chain)) {
          this.blocks.add(chain)
          this.onStored?.(chain)
        }
      }
    }
    return cached
  }
}
