import { describe, expect, it } from 'vitest'
import { deepFreeze, frozenJsonCopy, isDeepFrozen } from '../src/index.ts'

describe('frozenJsonCopy registration', () => {
  it('freezes every node but registers only the copy itself; an inner node reached alone is walked once and then known', () => {
    const copy = frozenJsonCopy({ data: { calls: [{ id: 'a', arguments: { path: 'x' } }] } })
    expect(isDeepFrozen(copy)).toBe(true)
    for (const node of [copy.data, copy.data.calls, copy.data.calls[0], copy.data.calls[0]!.arguments]) expect(Object.isFrozen(node)).toBe(true)
    expect(isDeepFrozen(copy.data.calls)).toBe(false)
    expect(deepFreeze(copy.data.calls)).toBe(copy.data.calls)
    expect(isDeepFrozen(copy.data.calls)).toBe(true)
    expect(isDeepFrozen(copy.data.calls[0]!.arguments)).toBe(true)
  })
})
