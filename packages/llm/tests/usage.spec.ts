import { normalizeUsage } from 'dsh-llm'
import { addUsage, emptyUsage } from '../src/usage.ts'
import { describe, expect, it } from 'vitest'

describe('usage helpers', () => {
  it('gives a fresh zero record each time', () => {
    const a = emptyUsage()
    a.inputTokens = 5
    expect(emptyUsage()).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 })
  })

  it.each([
    [undefined, [0, 0, 0, 0]],
    [{}, [0, 0, 0, 0]],
    [{ inputTokens: 12.9, outputTokens: 3 }, [12, 3, 0, 0]],
    [{ inputTokens: -4, outputTokens: Number.NaN, cacheReadTokens: Infinity }, [0, 0, 0, 0]],
    [{ inputTokens: '7' as any, outputTokens: null as any }, [0, 0, 0, 0]],
    // input counts cache reads and writes, so it can never be below them
    [{ inputTokens: 20, cacheReadTokens: 100, cacheWriteTokens: 5 }, [105, 0, 100, 5]],
    [{ inputTokens: 120, cacheReadTokens: 100 }, [120, 0, 100, 0]],
  ])('normalizes %j', (partial, [inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens]) => {
    expect(normalizeUsage(partial)).toEqual({ inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens })
  })

  it('keeps the emulated mark of the offline model\'s figures, and a sum with one emulated record is emulated', () => {
    const emulated = { inputTokens: 10, outputTokens: 1, cacheReadTokens: 8, cacheWriteTokens: 0, emulated: true as const }
    expect(normalizeUsage(emulated)).toEqual(emulated)
    expect(normalizeUsage({ ...emulated, emulated: 'yes' } as never)).not.toHaveProperty('emulated')
    expect(addUsage(emulated, emptyUsage())).toEqual(emulated)
    expect(addUsage(emptyUsage(), emptyUsage())).not.toHaveProperty('emulated')
  })

  it('adds records field by field', () => {
    expect(addUsage(
      { inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 },
      { inputTokens: 10, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 40 },
    )).toEqual({ inputTokens: 11, outputTokens: 22, cacheReadTokens: 33, cacheWriteTokens: 44 })
  })
})
