import { describe, expect, it } from 'vitest'
import type { ToolSchema } from 'dsh-core'
import { provide, setup } from './setup.ts'

const schema = (parameters: object): ToolSchema => ({ name: 'lookup', description: 'Looks up.', parameters })

const serverA = schema({ type: 'object', required: ['q', 'limit'], properties: { q: { type: 'string', description: 'Query.' }, limit: { type: 'integer', minimum: 1 } }, additionalProperties: false })
const serverB = schema({ additionalProperties: false, properties: { limit: { minimum: 1, type: 'integer' }, q: { description: 'Query.', type: 'string' } }, required: ['q', 'limit'], type: 'object' })

async function bytes(tool: ToolSchema, config: Record<string, unknown> = {}) {
  const ctx = await setup(config)
  await provide(ctx, 'server', [tool])
  return JSON.stringify((await ctx.systemPrompt.assemble()).tools)
}

describe('schema key order', () => {
  it('is canonical by default: the same schema in two key orders gives the same bytes, keys sorted at every depth', async () => {
    const a = await bytes(serverA)
    expect(await bytes(serverB)).toBe(a)
    expect(JSON.parse(a)[0].parameters).toEqual(serverA.parameters)
    expect(a).toBe(JSON.stringify([{
      name: 'lookup',
      description: 'Looks up.',
      parameters: { additionalProperties: false, properties: { limit: { minimum: 1, type: 'integer' }, q: { description: 'Query.', type: 'string' } }, required: ['q', 'limit'], type: 'object' },
    }]))
  })

  it('keeps array order, which is meaning', async () => {
    const tool = schema({ type: 'object', properties: { mode: { enum: ['z', 'a', { y: 1, b: 2 }] } }, required: ['mode'] })
    const parameters = JSON.parse(await bytes(tool))[0].parameters
    expect(parameters.properties.mode.enum).toEqual(['z', 'a', { b: 2, y: 1 }])
    expect(JSON.stringify(parameters.properties.mode.enum[2])).toBe('{"b":2,"y":1}')
  })

  it('keeps a "__proto__" property as data', async () => {
    const parameters = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"a":{"type":"string"}}}')
    const out = JSON.parse(await bytes(schema(parameters)))[0].parameters
    expect(Object.keys(out.properties)).toEqual(['__proto__', 'a'])
  })

  it('keeps the provider\'s order with schemaKeyOrder: registered', async () => {
    const a = await bytes(serverA, { schemaKeyOrder: 'registered' })
    const b = await bytes(serverB, { schemaKeyOrder: 'registered' })
    expect(a).not.toBe(b)
    expect(a).toBe(JSON.stringify([serverA]))
    expect(b).toBe(JSON.stringify([serverB]))
  })

  it('gives a registered-order service and a canonical one their own snapshots of one shared object', async () => {
    const shared = Object.freeze({ ...serverB })
    expect(await bytes(shared, { schemaKeyOrder: 'registered' })).toBe(JSON.stringify([serverB]))
    expect(await bytes(shared)).toBe(await bytes(serverA))
  })

  it('sorts listener-added schemas too', async () => {
    const ctx = await setup()
    ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
      const result = await next()
      return { ...result, tools: [...result.tools, serverB] }
    })
    const { tools } = await ctx.systemPrompt.assemble()
    expect(JSON.stringify(tools[0])).toBe(JSON.stringify(JSON.parse(await bytes(serverA))[0]))
  })

  it('rejects a wrong schemaKeyOrder, listing the valid ones', async () => {
    await expect(setup({ schemaKeyOrder: 'sorted' as never })).rejects.toThrow(/canonical.*registered/)
  })
})
