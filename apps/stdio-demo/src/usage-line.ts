import type { Usage } from 'dsh-core'

const DIM = '\x1b[2m'
const RESET = '\x1b[0m'

const count = (tokens: number) => tokens.toLocaleString('en-US')

/**
 * The dim line after a turn on a terminal: the turn's input tokens, the share of them read from the
 * provider's prompt cache (`(emulated)` when the offline model emulated it), and its output tokens, summed over
 * the turn's model calls; undefined without usage.
 */
export function usageLine(usages: readonly Usage[], dumb = process.env.TERM === 'dumb'): string | undefined {
  if (!usages.length) return undefined
  const input = usages.reduce((sum, usage) => sum + usage.inputTokens, 0)
  const cached = usages.reduce((sum, usage) => sum + usage.cacheReadTokens, 0)
  const output = usages.reduce((sum, usage) => sum + usage.outputTokens, 0)
  const share = input > 0 ? Math.round((cached / input) * 100) : 0
  // figures no provider reported (the offline model's emulated cache) say so
  const emulated = usages.some((usage) => usage.emulated) ? ' (emulated)' : ''
  const text = `${count(input)} in · ${share}% cached${emulated} · ${count(output)} out`
  return dumb ? `${text}\n` : `${DIM}${text}${RESET}\n`
}
