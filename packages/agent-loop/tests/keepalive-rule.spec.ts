import { describe, expect, it } from 'vitest'
import { decidePing, pingCost, pingDue, rewriteSaving, type PingQuestion } from '../src/keepalive/rule.ts'

const MINUTE = 60_000
const RATES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWrite1h: 6 }
const question = (over: Partial<PingQuestion> = {}): PingQuestion => ({
  now: 4.5 * MINUTE, requestAt: 0, refreshedAt: 0, ttlMs: 5 * MINUTE, ttlName: '5m', idleLimitMs: 30 * MINUTE,
  pings: 0, spent: 0, maxSpend: 1, warm: { readTokens: 100_000, uncachedTokens: 10 }, minimumTokens: 1024, rates: RATES, ...over,
})

describe('the keepalive rule', () => {
  it('is due a tenth of the lifetime before it ends', () => {
    expect(pingDue(0, 5 * MINUTE)).toBe(4.5 * MINUTE)
    expect(pingDue(1000, 60 * MINUTE)).toBe(1000 + 54 * MINUTE)
  })

  it('pings a warm, priced prefix within its bounds, weighing the ping against the write it saves', () => {
    const answer = decidePing(question())
    expect(answer).toEqual({ ping: true, cost: pingCost(question().warm, RATES), saving: rewriteSaving(question().warm, RATES, '5m') })
    // 100,000 tokens read at 0.3 $/M, 10 at 3 $/M, one output token at 15 $/M; the write would cost 3.75 - 0.3 more
    expect(pingCost(question().warm, RATES)).toBeCloseTo(0.030045, 9)
    expect(rewriteSaving(question().warm, RATES, '5m')).toBeCloseTo(0.345, 9)
    expect(rewriteSaving(question().warm, RATES, '1h')).toBeCloseTo(0.57, 9)
  })

  it('never pings at or after expiry: that would pay a write and save nothing', () => {
    expect(decidePing(question({ now: 5 * MINUTE }))).toEqual({ ping: false, why: 'expired' })
    expect(decidePing(question({ now: 9 * MINUTE, refreshedAt: 4 * MINUTE }))).toEqual({ ping: false, why: 'expired' })
  })

  it('stops at the idle bound, below the minimum, unpriced, at the rent-or-buy bound and at the spend cap', () => {
    expect(decidePing(question({ now: 31 * MINUTE, refreshedAt: 27 * MINUTE }))).toEqual({ ping: false, why: 'idle-limit' })
    expect(decidePing(question({ warm: { readTokens: 1000, uncachedTokens: 0 } }))).toEqual({ ping: false, why: 'not-cached' })
    expect(decidePing(question({ rates: undefined }))).toEqual({ ping: false, why: 'unpriced' })
    // 0.345 / 0.030045: a twelfth ping in one wait would make the pings cost more than the write
    expect(decidePing(question({ pings: 10 })).ping).toBe(true)
    expect(decidePing(question({ pings: 11 }))).toEqual({ ping: false, why: 'rent-bound' })
    expect(decidePing(question({ spent: 0.98 }))).toEqual({ ping: false, why: 'spend-cap' })
  })
})
