import type { Usage } from 'dsh-core'

const DIM = '\x1b[2m'
const RESET = '\x1b[0m'

const count = (tokens: number) => tokens.toLocaleString('en-US')

/** What a turn's requests cost in USD (`harness.cost(agent, turn)`): billed, and the same tokens with no cache. */
export interface TurnCost {
  billed: number
  noCache: number
  emulated: boolean
}

/** A turn's cost: four decimals under $10 (`$0.0123`), cents above; a cost too small for that says so. */
function turnMoney(usd: number): string {
  if (usd > 0 && usd < 0.00005) return '<$0.0001'
  return `$${usd.toFixed(usd < 10 ? 4 : 2)}`
}

/** A saving: cents (`$0.08`), four decimals under a cent. */
function savedMoney(usd: number): string {
  if (usd > 0 && usd < 0.00005) return '<$0.0001'
  return `$${usd.toFixed(usd >= 0.01 ? 2 : 4)}`
}

/**
 * The dim line after a turn on a terminal, summed over the turn's model calls; undefined without usage. With
 * the turn's `cost` (its model has a price): `$0.0123 this turn · 94% cached · saved $0.08`, the saving being
 * what the cache took off the no-cache cost (`writes cost $… more` when writing cost more than it saved).
 * Without: the input tokens, the share read from the provider's prompt cache and the output tokens. Figures
 * the offline model emulated say `(emulated)`.
 */
export function usageLine(usages: readonly Usage[], cost?: TurnCost, dumb = process.env.TERM === 'dumb'): string | undefined {
  if (!usages.length) return undefined
  const input = usages.reduce((sum, usage) => sum + usage.inputTokens, 0)
  const cached = usages.reduce((sum, usage) => sum + usage.cacheReadTokens, 0)
  const output = usages.reduce((sum, usage) => sum + usage.outputTokens, 0)
  const share = input > 0 ? Math.round((cached / input) * 100) : 0
  // figures no provider reported (the offline model's emulated cache) say so
  const emulated = usages.some((usage) => usage.emulated) || cost?.emulated ? ' (emulated)' : ''
  let text: string
  if (cost) {
    const saved = cost.noCache - cost.billed
    const effect = saved >= 0 ? `saved ${savedMoney(saved)}` : `writes cost ${savedMoney(-saved)} more`
    text = `${turnMoney(cost.billed)} this turn · ${share}% cached${emulated} · ${effect}`
  } else {
    text = `${count(input)} in · ${share}% cached${emulated} · ${count(output)} out`
  }
  return dumb ? `${text}\n` : `${DIM}${text}${RESET}\n`
}
