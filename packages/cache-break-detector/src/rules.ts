import { LOOKBACK_BLOCKS } from 'dsh-llm'
import { quote } from 'dsh-core'
import { CacheBreakDetectorError } from './errors.ts'

/**
 * What a provider's documentation says about its prompt cache, reduced to what a prediction needs. The
 * detector gets these from the model's provider profile; a route whose profile states no rules (a generic
 * endpoint, the offline model) is compared with its previous response only, as the specification describes.
 */
export interface CacheRules {
  /** The profile the rules come from (`anthropic`, `openai`, `deepseek`, `dashscope`, …), for logs and events. */
  profile: string
  /** `automatic`: the longest unchanged prefix is served; `breakpoints`: only prefixes ending at a marker are. */
  mechanism: 'automatic' | 'breakpoints'
  /** A served prefix is a whole number of these tokens (OpenAI 128, DeepSeek 64; 1 when any length is). */
  unitTokens: number
  /** The shortest prefix the provider caches at all, in tokens. */
  minimumTokens: number
  /** Idle time after which the documentation says an entry is gone (refreshed by each hit); unset when unstated. */
  ttlMs?: number
  /** Breakpoints only: how many blocks before a marker the provider looks for an entry it wrote earlier. */
  lookbackBlocks?: number
}

/** The lookback when rules name none: dsh-llm's `LOOKBACK_BLOCKS` (Anthropic's documented 20 blocks). */
export const ANTHROPIC_LOOKBACK_BLOCKS = LOOKBACK_BLOCKS

/** Throws `INVALID_RULES` naming the first field that cannot be predicted with; returns the rules. */
export function checkRules(rules: CacheRules): CacheRules {
  const whole = (value: unknown, least: number) => Number.isInteger(value) && (value as number) >= least
  const bad = (field: string, value: unknown, valid: string): never => {
    throw new CacheBreakDetectorError('INVALID_RULES', `cache rules of profile ${quote(rules.profile)}: ${field} must be ${valid}, got ${quote(value)}`)
  }
  if (rules.mechanism !== 'automatic' && rules.mechanism !== 'breakpoints') bad('mechanism', rules.mechanism, 'automatic or breakpoints')
  if (!whole(rules.unitTokens, 1)) bad('unitTokens', rules.unitTokens, 'a whole number >= 1')
  if (!whole(rules.minimumTokens, 0)) bad('minimumTokens', rules.minimumTokens, 'a whole number >= 0')
  if (rules.ttlMs !== undefined && !(typeof rules.ttlMs === 'number' && rules.ttlMs > 0)) bad('ttlMs', rules.ttlMs, 'a number of milliseconds > 0')
  if (rules.mechanism === 'breakpoints' && !whole(rules.lookbackBlocks ?? ANTHROPIC_LOOKBACK_BLOCKS, 0)) {
    bad('lookbackBlocks', rules.lookbackBlocks, 'a whole number >= 0')
  }
  return rules
}
