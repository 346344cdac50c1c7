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
})
