import { afterEach, describe, expect, it } from 'vitest'
import { startEmulator } from '../src/emulator/index.ts'

const MODEL = 'slots-model'
const open: { close(): Promise<void> }[] = []
afterEach(async () => {
  for (const emulator of open.splice(0)) await emulator.close()
})

/** A llama.cpp-like emulator with `slots` slots, and a poster returning the status and cached tokens. */
async function server(slots?: number) {
  const served = await startEmulator([MODEL], slots === undefined ? {} : { slots })
  open.push(served)
  const post = async (body: object, path = '/llamacpp/v1/chat/completions') => {
    const response = await fetch(`${served.origin}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify({ model: MODEL, stream: true, stream_options: { include_usage: true }, ...body }),
    })
    await response.text()
    return { status: response.status, cached: response.ok ? served.ledger.at(-1)!.cachedTokens : undefined }
  }
  return { served, post }
}

const system = (label: string) => ({ role: 'system', content: `${label} ${'a long persona and tool block '.repeat(80)}` })
const ask = (label: string, extra: object = {}) => ({ messages: [system('parent'), { role: 'user', content: label }], ...extra })
const fresh = (extra: object = {}) => ({ messages: [system('a fresh child with its own persona'), { role: 'user', content: 'go' }], ...extra })

describe('the llama.cpp route: slots of one prompt each', () => {
  it('with one slot, a request of another prefix evicts the one before', async () => {
    const { post } = await server()
    await post(ask('one'))
    expect((await post(ask('two'))).cached).toBeGreaterThan(500)
    await post(fresh())
    expect((await post(ask('three'))).cached).toBeLessThan(10)
  })

  it('with two slots and id_slot, the other prefix runs beside it and the parent keeps its slot', async () => {
    const { post } = await server(2)
    await post(ask('one', { id_slot: 0 }))
    await post(fresh({ id_slot: 1 }))
    expect((await post(ask('two', { id_slot: 0 }))).cached).toBeGreaterThan(500)
    // the same child on the parent's slot evicts it
    await post(fresh({ id_slot: 0 }))
    expect((await post(ask('three', { id_slot: 0 }))).cached).toBeLessThan(10)
  })

  it('without id_slot, picks the slot sharing the longest prefix, else the one used least recently', async () => {
    const { post } = await server(2)
    await post(ask('one'))
    await post(fresh())
    expect((await post(ask('two'))).cached).toBeGreaterThan(500)
    expect((await post(fresh())).cached).toBeGreaterThan(500)
  })

  it('refuses an id_slot past the server\'s slots, and affinity fields on a hosted provider\'s route', async () => {
    const { served, post } = await server(2)
    expect((await post(ask('one', { id_slot: 2 }))).status).toBe(500)
    expect(served.problems.join('\n')).toContain('id_slot 2, but the server has 2 slot(s) (0 to 1)')
    expect((await post(ask('one', { id_slot: 1.5 }))).status).toBe(400)
    expect((await post(ask('one', { cache_salt: 'x' }), '/openai/v1/chat/completions')).status).toBe(400)
    expect(served.problems.join('\n')).toMatch(/cache_salt on the openai route, which is no local engine's/)
    expect((await post(ask('one', { session_id: 's', cache_salt: 'x' }), '/v1/chat/completions')).status).toBe(200)
  })
})
