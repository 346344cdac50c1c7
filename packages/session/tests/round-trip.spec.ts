import { describe, expect, it } from 'vitest'
import { setup, tempDir } from './helpers.ts'

describe('what is in memory is what a reload reads', () => {
  it('keeps a "__proto__" key of model-supplied tool arguments as data, in memory and on reload', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    const session = await sessions.create('proto')
    const args = JSON.parse('{"__proto__":{"polluted":true},"path":"a"}')
    const logged = session.append('tool/call', { turn: 1, step: 1, id: 'c1', name: 'read', arguments: args })
    expect(Object.keys(logged.data.arguments)).toEqual(['__proto__', 'path'])
    expect((logged.data.arguments as Record<string, unknown>).polluted).toBeUndefined()
    await sessions.close('proto')
    const reloaded = await sessions.open('proto')
    expect(JSON.stringify(reloaded.events()[0]!.data)).toBe(JSON.stringify(logged.data))
  })

  it('carries emoji, astral characters and lone surrogates through the JSONL file unchanged', async () => {
    const root = await tempDir()
    const { sessions } = await setup({ persistenceRoot: root })
    const session = await sessions.create('unicode')
    const text = 'héllo 👋🏽 𝔘 \u2028 \ud800 end'
    session.append('user/message', { turn: 1, text })
    await sessions.close('unicode')
    const reloaded = await sessions.open('unicode')
    const [event] = reloaded.events()
    expect(event!.type === 'user/message' && event!.data.text).toBe(text)
  })
})
