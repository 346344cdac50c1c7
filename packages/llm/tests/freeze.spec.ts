import { type ChatMessage } from 'dsh-core'
import { type GenerateOptions } from 'dsh-llm'
import { describe, expect, it } from 'vitest'
import { drain, fakeAdapter, options, setup } from './setup.ts'

describe('llm.stream freezing', () => {
  it('freezes options before the adapter sees them, and at call time', async () => {
    const ctx = await setup()
    let frozenAtDispatch: boolean[] = []
    const { adapter, seen } = fakeAdapter('p', ['m'], async function* (opts) {
      frozenAtDispatch = [opts, opts.messages, opts.messages.at(0), opts.tools, opts.tools[0].parameters].map(Object.isFrozen)
      yield { type: 'done', stopReason: 'end_turn' }
    })
    ctx.llm.register(adapter)
    const controller = new AbortController()
    const request: GenerateOptions = options('m', {
      tools: [{ name: 't', description: 'd', parameters: { type: 'object', properties: {} } }],
      signal: controller.signal,
    })
    const stream = ctx.llm.stream(request)
    // frozen as soon as stream() returns, before iteration starts
    expect(Object.isFrozen(request.messages)).toBe(true)
    expect(() => (request.messages as ChatMessage[]).push({ role: 'user', text: 'late edit' })).toThrow(TypeError)
    await drain(stream)
    expect(seen[0]).toBe(request)
    expect(frozenAtDispatch).toEqual([true, true, true, true, true])
    expect(Object.isFrozen(controller.signal)).toBe(false)
  })
})
