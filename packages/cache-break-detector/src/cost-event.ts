import type { Usage } from 'dsh-core'
import type { EventData } from 'dsh-session'
import type { PromptCacheBreak } from './types.ts'

/** The data of `request/cost` (a core event of dsh-session: its prefix is the core's). */
export type RequestCostEvent = EventData<'request/cost'>

/** What `ctx.llm.cost` answers (a structural view, so this package adds no name to dsh-llm's surface). */
interface Pricing {
  cost(model: string, usage: Usage, missedTokens?: number): { billed: number; noCache: number; breakCost?: number; emulated?: true } | undefined
}

/**
 * The tokens a break cost the cache: what the cache should have served (the rules' prediction, else the
 * previous read) less what it read.
 */
export function missedTokens(found: Pick<PromptCacheBreak, 'previousCacheReadTokens' | 'currentCacheReadTokens' | 'predictedCacheReadTokens'>): number {
  const expected = found.predictedCacheReadTokens ?? found.previousCacheReadTokens
  return Math.max(0, Math.round(expected - found.currentCacheReadTokens))
}

/** The `request/cost` record of one response, or undefined when its model has no price. */
export function costRecord(llm: Pricing, model: string, at: { turn: number; step: number }, usage: Usage, found?: PromptCacheBreak): RequestCostEvent | undefined {
  const missed = found ? missedTokens(found) : undefined
  const cost = llm.cost(model, usage, missed)
  if (!cost) return undefined
  return {
    ...at,
    model,
    billed: cost.billed,
    noCache: cost.noCache,
    ...found && { reason: found.reason, missedTokens: missed, breakCost: cost.breakCost ?? 0 },
    ...cost.emulated && { emulated: true as const },
  }
}
