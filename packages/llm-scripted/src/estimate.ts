import type { Usage } from 'dsh-llm'

const CHARS_PER_TOKEN = 4

/** A deterministic token estimate (about four characters a token) of a request and its reply. */
export function estimateUsage(request: unknown, output: string): Usage {
  return {
    inputTokens: tokens(JSON.stringify(request)),
    outputTokens: tokens(output),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  }
}

function tokens(text: string) {
  return Math.ceil(text.length / CHARS_PER_TOKEN)
}
