import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Usage } from 'dsh-core'
import { PrefixStore, tokensOf } from './prefix-store.ts'

/** A request as the scripted model sees it: tool schemas first, then the system prompt, then the history. */
export interface ScriptedRequest {
  tools: readonly object[]
  system: string
  deferred: readonly string[]
  messages: unknown
}

/** Tokens per cached block: vLLM's default block size, so a short demo prompt is not lost in rounding. */
export const SCRIPTED_TOKENS_PER_BLOCK = 16

/** Blocks a cache file keeps; past twice this many lines, the oldest half is dropped when the file is read. */
export const KEPT_BLOCKS = 20_000

/**
 * The offline model's prompt cache: the generic automatic prefix cache (whole blocks, here of 16 tokens, no minimum)
 * over the request's bytes in the order a provider receives them: tools, system prompt, history. With `file`,
 * each block stored is appended to it as one line, and a new process starts from the blocks in it, as a
 * provider's cache outlives the client that filled it; without one, a new process starts cold.
 */
export class EmulatedCache {
  private readonly store: PrefixStore
  private pending: string[] = []

  constructor(readonly file?: string) {
    this.store = new PrefixStore(SCRIPTED_TOKENS_PER_BLOCK, (hash) => void this.pending.push(hash))
    if (file) this.store.restore(readKept(file))
  }

  /** The usage of one call: every prompt token counted from the request's text, the cached ones from the store. */
  usage(request: ScriptedRequest, output: string): Usage {
    const text = JSON.stringify({ tools: request.tools, system: request.system, deferred: request.deferred, messages: request.messages })
    const cacheReadTokens = this.store.lookupAndStore(text)
    this.keep()
    return { inputTokens: tokensOf(text.length), outputTokens: tokensOf(output.length), cacheReadTokens, cacheWriteTokens: 0, emulated: true }
  }

  private keep(): void {
    const hashes = this.pending
    this.pending = []
    if (!this.file || !hashes.length) return
    try {
      // the first call may come before the session's folder is made
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 })
      appendFileSync(this.file, `${hashes.join('\n')}\n`)
    } catch {
      // an emulated cache that cannot be kept is only colder in the next process; the session is unaffected
    }
  }
}

function readKept(file: string): string[] {
  let lines: string[]
  try {
    lines = readFileSync(file, 'utf8').split('\n').filter((line) => line !== '')
  } catch {
    return []
  }
  if (lines.length <= 2 * KEPT_BLOCKS) return lines
  lines = lines.slice(-KEPT_BLOCKS)
  try {
    writeFileSync(file, `${lines.join('\n')}\n`)
  } catch {
    // kept as it was; read again next time
  }
  return lines
}
