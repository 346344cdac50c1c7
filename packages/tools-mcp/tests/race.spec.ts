import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bootApp, sessionLog, testServer, type TestTool } from './setup.ts'

// the same two servers on every run; only timing, list order and schema key order change
const ALPHA: TestTool[] = ['read', 'write', 'stat'].map((name) => ({
  name,
  description: `alpha ${name}`,
  inputSchema: { type: 'object', properties: { path: { type: 'string', description: 'A path.' }, depth: { type: 'integer' } }, required: ['path'] },
}))
const BETA: TestTool[] = ['search', 'fetch'].map((name) => ({
  name,
  description: `beta ${name}`,
  inputSchema: { type: 'object', properties: { query: { type: 'string' } }, additionalProperties: false },
}))

/** A deep copy with object keys reversed: the same schema in another byte order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).reverse().map(([key, member]) => [key, reverseKeys(member)]))
}

interface Run {
  delays: [number, number]
  alphaOrder: number[]
  betaFirst: boolean
  reversed: boolean
}

const runs: Run[] = fc.sample(fc.record({
  delays: fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 })),
  alphaOrder: fc.shuffledSubarray([0, 1, 2], { minLength: 3, maxLength: 3 }),
  betaFirst: fc.boolean(),
  reversed: fc.boolean(),
}), { numRuns: 10, seed: 11 }) as Run[]

async function firstHeader(run: Run): Promise<string> {
  const alpha = run.alphaOrder.map((index) => ALPHA[index]!)
  const beta = run.betaFirst ? BETA : [...BETA].reverse()
  const shape = (tools: TestTool[]) => (run.reversed ? tools.map((tool) => reverseKeys(tool) as TestTool) : tools)
  const servers = {
    alpha: testServer({ tools: shape(alpha), delayMs: run.delays[0] }),
    beta: testServer({ tools: shape(beta), delayMs: run.delays[1] }),
  }
  // entries in another order too
  const entry = { id: 'mcp', name: 'dsh-tools-mcp', config: { servers: run.betaFirst ? { beta: servers.beta, alpha: servers.alpha } : servers } }
  const { app, dir } = await bootApp([entry])
  try {
    const agent = await app.ctx.agentLoop.createAgent({ id: 'race' })
    expect((await agent.prompt('hello')).text).toBe('echo: hello')
  } finally {
    await app.dispose()
  }
  const headers = (await sessionLog(dir, 'race')).filter((event) => event.type === 'request/header')
  expect(headers).toHaveLength(1)
  return JSON.stringify(headers[0]!.data)
}

describe('ten boots with shuffled server start delays', () => {
  it('log a byte-identical first request header holding every tool of both servers', async () => {
    expect(new Set(runs.map((run) => run.delays[0] < run.delays[1])).size).toBe(2) // both servers win some races
    const headers: string[] = []
    // two boots at a time: enough to race, light on a shared machine
    for (let index = 0; index < runs.length; index += 2) headers.push(...await Promise.all(runs.slice(index, index + 2).map(firstHeader)))
    expect(new Set(headers).size).toBe(1)
    const tools = JSON.parse(headers[0]!).header.tools
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual([
      'mcp__alpha__read', 'mcp__alpha__stat', 'mcp__alpha__write', 'mcp__beta__fetch', 'mcp__beta__search',
    ])
    expect(tools[0]).toEqual({
      name: 'mcp__alpha__read',
      description: 'alpha read',
      parameters: { properties: { depth: { type: 'integer' }, path: { description: 'A path.', type: 'string' } }, required: ['path'], type: 'object' },
    })
  }, 120_000)
})
