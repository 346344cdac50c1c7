import { describe, expect, it } from 'vitest'
import { keepaliveMetrics } from '../src/cache/keepalive.ts'

describe('bench:cache keepalive scenarios', () => {
  it('spends at most 0.8 of the spend without a keepalive on gaps around the lifetime, and stays quiet past its idle bound', async () => {
    const { results, problems } = await keepaliveMetrics()
    expect(problems).toEqual([])
    expect(results.spend_keepalive_over_none).toBeLessThanOrEqual(0.8)
    expect(results.keepalive_pings).toBeGreaterThan(0)
    expect(results.keepalive_pings_long_idle).toBe(0)
    // it did ping in those long gaps, up to the bound
    expect(results.keepalive_pings_long_idle_total).toBeGreaterThan(0)
    expect(results.spend_compact_warm_over_cold).toBeLessThan(1)
  }, 60_000)
})
