import type { ToolSchema } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { setup } from './setup.ts'

describe('tool snapshots', () => {
  it('an issued assembly does not change when the provider mutates its objects', async () => {
    const ctx = await setup()
    const schema: any = { name: 'read', description: 'reads', parameters: { type: 'object', properties: { path: { type: 'string' } } } }
    await ctx.plugin({ name: 'p', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas: [schema] })) } })
    const first = await ctx.systemPrompt.assemble()
    const before = JSON.stringify(first.tools)
    schema.description = 'changed'
    schema.parameters.properties.path.type = 'number'
    expect(JSON.stringify(first.tools)).toBe(before)
  })

  it('nobody can mutate an assembly schema to reach the provider', async () => {
    const ctx = await setup()
    const schema: ToolSchema = { name: 'read', description: 'reads', parameters: { type: 'object', properties: {} } }
    await ctx.plugin({ name: 'p', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas: [schema] })) } })
    const { tools } = await ctx.systemPrompt.assemble()
    expect(() => { (tools[0] as any).description = 'x' }).toThrow(TypeError)
    expect(() => { (tools[0].parameters as any).properties.evil = {} }).toThrow(TypeError)
    expect(schema.description).toBe('reads')
    expect(tools[0]).not.toBe(schema)
  })

  it('a new object from the provider is a new definition', async () => {
    const ctx = await setup()
    let schema: ToolSchema = { name: 'read', description: 'v1', parameters: {} }
    await ctx.plugin({ name: 'p', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas: [schema] })) } })
    expect((await ctx.systemPrompt.assemble()).tools[0].description).toBe('v1')
    schema = { ...schema, description: 'v2' }
    expect((await ctx.systemPrompt.assemble()).tools[0].description).toBe('v2')
  })

  it('keeps a deeply frozen schema as it is, and reuses the last snapshot for an equal schema built anew', async () => {
    const ctx = await setup()
    // keys already in code-unit order, as the default schemaKeyOrder (canonical) sends them
    const frozen = Object.freeze({ name: 'frozen', description: 'd', parameters: Object.freeze({ properties: Object.freeze({}), type: 'object' }) })
    const fresh = () => ({ name: 'fresh', description: 'd', parameters: { type: 'object', properties: { n: { type: 'number' } } } })
    await ctx.plugin({ name: 'p', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas: [frozen, fresh()] })) } })
    const first = await ctx.systemPrompt.assemble()
    const second = await ctx.systemPrompt.assemble()
    expect(first.tools[1]).toBe(frozen)
    expect(first.tools[0]).toBe(second.tools[0])
    expect(Object.isFrozen((first.tools[0].parameters as any).properties.n)).toBe(true)
  })

  it('copies a frozen schema whose members are not in snapshot order or that carries extra members', async () => {
    const ctx = await setup()
    const parameters = Object.freeze({ type: 'object' })
    const reordered = Object.freeze({ description: 'd', name: 'a', parameters })
    const extra = Object.freeze({ name: 'b', description: 'd', parameters, annotations: Object.freeze({}) })
    await ctx.plugin({ name: 'p', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas: [reordered, extra] })) } })
    const { tools } = await ctx.systemPrompt.assemble()
    expect(JSON.stringify(tools)).toBe('[{"name":"a","description":"d","parameters":{"type":"object"}},{"name":"b","description":"d","parameters":{"type":"object"}}]')
    expect(tools[0].parameters).toBe(parameters)
  })
})
