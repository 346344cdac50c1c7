import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deepFreeze, extendList, type ChatMessage } from 'dsh-core'
import { projectToolUpdates, type GenerateOptions } from '../src/index.ts'

describe('projection of extended histories', () => {
  it('the projection of a growing history equals filtering it from scratch, at every step', () => {
    const message = fc.oneof(
      fc.string().map((text): ChatMessage => ({ role: 'user', text })),
      fc.constant<ChatMessage>({ role: 'developer', source: 'tool-registry', added: ['x'], removed: [], headerSeq: 1 }),
    )
    fc.assert(fc.property(fc.array(fc.array(message, { maxLength: 4 }), { maxLength: 12 }), (steps) => {
      let history = deepFreeze([] as ChatMessage[]) as readonly ChatMessage[]
      for (const added of steps) {
        history = extendList(history, added)
        const options = { model: 'm', system: '', tools: [], messages: history } as unknown as GenerateOptions
        const projected = projectToolUpdates(options, 'none').messages
        expect(projected).toEqual(history.filter((item) => item.role !== 'developer'))
        expect(Object.isFrozen(projected)).toBe(true)
      }
    }))
  })
})
