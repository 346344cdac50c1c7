import { quote } from 'dsh-core'
import { CacheBreakDetectorError } from './errors.ts'
import type { DropThresholds } from './types.ts'

/** A fall by half the previous read, and by at least 1024 tokens (about one provider cache block). */
export const DEFAULT_THRESHOLDS: Readonly<DropThresholds> = Object.freeze({ minDropRatio: 0.5, minDropTokens: 1024 })

/** True for a usable `minDropRatio`: a number in (0, 1]. */
export function isDropRatio(value: unknown): value is number {
  return typeof value === 'number' && value > 0 && value <= 1
}

/** True for a usable `minDropTokens`: a finite number ≥ 0. */
export function isDropTokens(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0
}

/** The thresholds with defaults filled in; throws `INVALID_THRESHOLD` naming a bad value. */
export function resolveThresholds(thresholds: Partial<DropThresholds> = {}): DropThresholds {
  const { minDropRatio = DEFAULT_THRESHOLDS.minDropRatio, minDropTokens = DEFAULT_THRESHOLDS.minDropTokens } = thresholds
  if (!isDropRatio(minDropRatio)) {
    throw new CacheBreakDetectorError('INVALID_THRESHOLD', `minDropRatio must be a number greater than 0 and at most 1, got ${quote(minDropRatio)}`)
  }
  if (!isDropTokens(minDropTokens)) {
    throw new CacheBreakDetectorError('INVALID_THRESHOLD', `minDropTokens must be a finite number of at least 0, got ${quote(minDropTokens)}`)
  }
  return { minDropRatio, minDropTokens }
}

/**
 * True when cache reads fell from `previous` to `current` by at least `minDropRatio` of `previous` and by
 * at least `minDropTokens` tokens.
 */
export function isCacheDrop(previous: number, current: number, thresholds: DropThresholds): boolean {
  const drop = previous - current
  return previous > 0 && drop > 0 && drop >= thresholds.minDropTokens && drop >= previous * thresholds.minDropRatio
}
