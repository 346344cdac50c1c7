import { describe, expect, it } from 'vitest'
import { expectEveryTurnFailed, run, sessionEvents, writeApp } from './setup.ts'

describe('the context window through the bin', () => {
  it('a request bigger than contextWindow fails each turn with one line, before any model call, with a balanced log', async () => {
    const { file, sessions } = await writeApp([
      '- { id: app, name: dsh-stdio-demo, config: { persistenceRoot: ./sessions, model: tiny } }',
      '- { id: tiny, name: dsh-llm-scripted, config: { models: [{ id: tiny, contextWindow: 10 }] } }',
    ].join('\n') + '\n')
    const exit = await run([file], 'hello\nagain\n')
    expectEveryTurnFailed(exit, 2, /^error: the next request needs about \d+ tokens, more than the 10-token context window of "tiny", and there is no earlier history to compact$/)
    const events = await sessionEvents(sessions)
    const types = events.map((event) => event.type)
    expect(types.filter((type) => type === 'turn/end')).toHaveLength(2)
    expect(types.filter((type) => type === 'step/start').length).toBe(types.filter((type) => type === 'step/end').length)
    expect(types).not.toContain('request/header')
    expect(types).not.toContain('assistant/message')
  })
})
