import { SessionError } from 'dsh-session'
import { afterEach, describe, expect, it } from 'vitest'
import { readLog, setup, toolPlugin } from './setup.ts'

type Spine = Awaited<ReturnType<typeof setup>>
const spines: Spine[] = []
afterEach(async () => { for (const spine of spines.splice(0)) await spine.dispose() })

const PRICE = { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, source: 'https://example.test/prices' }
const M = 1e6

/** Three requests of 20,000 prompt tokens: a cold write, a full read, then a break (tool beta added) that writes again. */
async function scenario(options: Parameters<typeof setup>[0]) {
  const spine = await setup(options)
  spines.push(spine)
  await spine.plug(toolPlugin('alpha'))
  const agent = await spine.ctx.agentLoop.createAgent({ id: 'a' })
  spine.model.queue({ read: 0, write: 7000, toolCalls: [{ id: 'c1', name: 'alpha', arguments: { text: 'x' } }] }, { read: 7000 })
  await agent.prompt('use alpha')
  await spine.plug(toolPlugin('beta'))
  spine.model.queue({ read: 0, write: 7200 })
  await agent.prompt('again')
  await agent.session.flushed()
  return { ...spine, agent }
}

describe('request/cost', () => {
  it('prices every response of a priced model, and what the break cost over a full hit, right after the response and its break', async () => {
    const { agent, root } = await scenario({ price: () => PRICE })
    const costs = agent.session.events().filter((event) => event.type === 'request/cost').map((event) => event.data)
    // uncached input, then reads, writes and 3 output tokens each at its rate; no cache: all 20,000 at $5
    const noCache = (20_000 * 5 + 3 * 25) / M
    expect(costs).toHaveLength(3)
    expect(costs[0]).toEqual({ turn: 1, step: 1, model: 'cache-a', billed: expect.closeTo((13_000 * 5 + 7000 * 6.25 + 3 * 25) / M, 12), noCache: expect.closeTo(noCache, 12) })
    expect(costs[1]).toEqual({ turn: 1, step: 2, model: 'cache-a', billed: expect.closeTo((13_000 * 5 + 7000 * 0.5 + 3 * 25) / M, 12), noCache: expect.closeTo(noCache, 12) })
    // the 7,000 tokens the break cost were written again at $6.25 instead of read at $0.50
    expect(costs[2]).toMatchObject({ turn: 2, step: 1, reason: 'tools_schema_changed', missedTokens: 7000 })
    expect(costs[2]!.breakCost).toBeCloseTo(7000 * (6.25 - 0.5) / M, 12)
    const types = agent.session.events().map((event) => event.type)
    const last = types.lastIndexOf('request/cost')
    expect(types.slice(last - 2, last + 2)).toEqual(['assistant/message', 'prompt-cache/break', 'request/cost', 'step/end'])
    expect(types[types.indexOf('request/cost') - 1]).toBe('assistant/message')
    const persisted = (await readLog(root, 'a')).filter((event) => event.type === 'request/cost').map((event) => event.data)
    expect(persisted).toEqual(costs)
  })

  it('logs no money for a model without a price: the log has tokens only', async () => {
    const { agent } = await scenario({})
    expect(agent.session.events().some((event) => event.type === 'request/cost')).toBe(false)
    expect(agent.session.events().filter((event) => event.type === 'prompt-cache/break')).toHaveLength(1)
  })

  it('refuses a cost that is negative or not a number at append, naming the field', async () => {
    const { agent } = await scenario({})
    const append = (data: object) => () => agent.session.append('request/cost', { turn: 1, step: 1, model: 'cache-a', billed: 0.1, noCache: 0.2, ...data } as never)
    expect(append({ billed: -0.1 })).toThrow(SessionError)
    expect(append({ billed: -0.1 })).toThrow('request/cost: field "billed"')
    expect(append({ noCache: '0.2' })).toThrow('request/cost: field "noCache"')
  })
})
