import { configRefusal, sampleRequest } from 'dsh-llm-testing'
import { describe, expect, it } from 'vitest'
import OpenAIProvider, { chatWireBody, createOpenAIAdapter, type OpenAIConfig } from '../src/index.ts'

const LOCAL = 'http://127.0.0.1:8080/v1'
const entry = (affinity: unknown, extra: object = {}) => ({ baseURL: LOCAL, models: [{ id: 'test-model', affinity, ...extra }] }) as Partial<OpenAIConfig>
type Mode = 'fork' | 'fresh' | 'side'
const body = (config: Partial<OpenAIConfig>, session?: string, mode: Mode = 'fork') => {
  const cut = session?.lastIndexOf('~') ?? -1
  const lineage = session === undefined ? undefined : cut > 0 ? { session, parent: session.slice(0, cut), mode } : { session }
  return chatWireBody(config, sampleRequest(lineage ? { lineage } : {})).body as unknown as Record<string, unknown>
}

describe('affinity: id_slot (llama.cpp)', () => {
  it('puts a fresh child on another slot than its parent, for every child and slot count', () => {
    for (const slots of [2, 3, 4]) {
      const config = entry({ field: 'id_slot', slots })
      for (const root of ['session-a', 'session-b', 'x']) {
        const parent = body(config, root).id_slot as number
        expect(parent).toBeGreaterThanOrEqual(0)
        expect(parent).toBeLessThan(slots)
        const fresh = Array.from({ length: 6 }, (_, index) => body(config, `${root}~${index + 1}`, 'fresh').id_slot as number)
        for (const child of fresh) expect(child).not.toBe(parent)
        // the same line always gets the same slot (a rebuilt request has the same bytes)
        expect(body(config, `${root}~2`, 'fresh').id_slot).toBe(fresh[1])
      }
    }
  })

  it('keeps a fork or side child on its parent\'s slot: its prompt starts with the parent\'s, which the slot keeps', () => {
    const config = entry({ field: 'id_slot', slots: 3 })
    const parent = body(config, 'root').id_slot
    expect(body(config, 'root~1', 'fork').id_slot).toBe(parent)
    expect(body(config, 'root~2', 'side').id_slot).toBe(parent)
  })

  it('sends nothing without a lineage, and nothing on an entry without affinity', () => {
    expect(body(entry({ field: 'id_slot', slots: 2 }))).not.toHaveProperty('id_slot')
    expect(Object.keys(body({ baseURL: LOCAL, models: ['test-model'] }, 'root~1'))).not.toEqual(expect.arrayContaining(['id_slot']))
    expect(body({ baseURL: LOCAL, models: ['test-model'] }, 'root~1')).not.toHaveProperty('session_id')
  })

  it('declares its field to the loop per model', () => {
    const adapter = createOpenAIAdapter({ baseURL: LOCAL, models: [{ id: 'pinned', affinity: { field: 'id_slot', slots: 2 } }, 'free'] })
    expect(adapter.affinity?.('pinned')).toBe('id_slot')
    expect(adapter.affinity?.('free')).toBeUndefined()
  })
})

describe('affinity: session_id (SGLang) and cache_salt (vLLM)', () => {
  it('session_id is the request\'s own session, so a child\'s KV is tagged apart from its parent\'s', () => {
    const config = entry({ field: 'session_id' })
    expect(body(config, 'root').session_id).toBe('root')
    expect(body(config, 'root~2').session_id).toBe('root~2')
  })

  it('cache_salt is one per line: a fork shares its parent\'s salt, another session has its own', () => {
    const config = entry({ field: 'cache_salt' })
    const salt = body(config, 'root').cache_salt as string
    expect(salt).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(body(config, 'root~1').cache_salt).toBe(salt)
    expect(body(config, 'root~1~3').cache_salt).toBe(salt)
    expect(body(config, 'other').cache_salt).not.toBe(salt)
  })
})

describe('affinity: bad values get one line naming the model and the value', () => {
  it.each([
    ['an unknown field', { field: 'slot_id' }, /model "test-model" has affinity \{"field":"slot_id"\}: field must be one of id_slot, session_id, cache_salt/],
    ['id_slot without slots', { field: 'id_slot' }, /slots must be the server's slot count, a whole number >= 2 .*-np 2/],
    ['one slot', { field: 'id_slot', slots: 1 }, /slots must be the server's slot count, a whole number >= 2/],
    ['slots beside session_id', { field: 'session_id', slots: 2 }, /slots goes with field id_slot only/],
  ])('%s', async (_, affinity, message) => {
    const refusal = await configRefusal(OpenAIProvider, entry(affinity) as Record<string, unknown>)
    expect(refusal).toMatch(message)
    expect(refusal).not.toContain('\n')
    expect(() => createOpenAIAdapter(entry(affinity))).toThrow(message)
  })

  it('refuses a field on a hosted provider\'s profile: each is one local engine\'s', async () => {
    const refusal = await configRefusal(OpenAIProvider, { models: [{ id: 'gpt-x', affinity: { field: 'cache_salt' } }] })
    expect(refusal).toMatch(/model "gpt-x" has affinity \{"field":"cache_salt"\}, but its profile is openai: affinity fields are local engines' .* on the generic profile only/)
    expect(() => createOpenAIAdapter({ baseURL: LOCAL, models: [{ id: 'm', provider: 'deepseek', affinity: { field: 'id_slot', slots: 2 } }] }))
      .toThrow(/but its profile is deepseek/)
  })
})
