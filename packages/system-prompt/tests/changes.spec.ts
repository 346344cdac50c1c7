import fc from 'fast-check'
import { compareCodeUnits, type ToolSchema } from 'dsh-core'
import { describe, expect, it } from 'vitest'
import { SystemPromptError } from '../src/index.ts'
import { names, setup, tool } from './setup.ts'

// Large enough that the assembly follows a provider's changes instead of sorting its whole list again.
const POOL = 600

const pool = Array.from({ length: POOL }, (_, i) => `t${(i * 7919 % POOL).toString(36)}_${i}`)

/** A provider whose answer the test replaces: frozen arrays, as a registry hands them out. */
async function changingProvider() {
  const ctx = await setup()
  let schemas: readonly ToolSchema[] = Object.freeze([])
  await ctx.plugin({ name: 'changing', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas })) } })
  return { ctx, set: (next: ToolSchema[]) => { schemas = Object.freeze(next) } }
}

const step = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), picks: fc.array(fc.nat(POOL - 1), { maxLength: 12 }) }),
  fc.record({ kind: fc.constant('remove' as const), picks: fc.array(fc.nat(POOL - 1), { maxLength: 12 }) }),
  fc.record({ kind: fc.constant('replace' as const), picks: fc.array(fc.nat(POOL - 1), { maxLength: 4 }) }),
  fc.record({ kind: fc.constant('shuffle' as const), picks: fc.array(fc.nat(POOL - 1), { minLength: 1, maxLength: 1 }) }),
  fc.record({ kind: fc.constant('everything' as const), picks: fc.array(fc.nat(POOL - 1), { maxLength: 400 }) }),
)

describe('assembling after a change to a provider\'s tools', () => {
  it('lists exactly the current tools in code-unit order through any sequence of additions, removals, replacements and reorders (property)', async () => {
    await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
      const { ctx, set } = await changingProvider()
      // the provider's list in its own (arbitrary) order, one schema object per name
      let current = new Map<string, ToolSchema>(pool.slice(0, 300).map((name) => [name, tool(name)]))
      let order = [...current.keys()]
      set(order.map((name) => current.get(name)!))
      await ctx.systemPrompt.assemble()
      for (const { kind, picks } of steps) {
        const picked = picks.map((i) => pool[i]!)
        if (kind === 'add') for (const name of picked) if (!current.has(name)) { current.set(name, tool(name)); order.push(name) }
        if (kind === 'remove') { for (const name of picked) current.delete(name); order = order.filter((name) => current.has(name)) }
        if (kind === 'replace') for (const name of picked) if (current.has(name)) current.set(name, tool(name, `changed ${name}`))
        if (kind === 'shuffle') order = [...order.slice(picks[0]! % (order.length || 1)), ...order.slice(0, picks[0]! % (order.length || 1))]
        if (kind === 'everything') { current = new Map(picked.map((name) => [name, tool(name)])); order = [...current.keys()] }
        set(order.map((name) => current.get(name)!))
        const { tools } = await ctx.systemPrompt.assemble()
        expect(names(tools)).toEqual([...current.keys()].sort(compareCodeUnits))
        for (const schema of tools) expect(schema.description).toBe(current.get(schema.name)!.description)
      }
    }), { numRuns: 30 })
  })

  it('rejects a name that a change adds twice, and recovers once the list is valid again', async () => {
    const { ctx, set } = await changingProvider()
    const list = pool.slice(0, 400).map((name) => tool(name))
    set(list)
    await ctx.systemPrompt.assemble()
    for (const twice of [[...list, tool(pool[5]!)], [...list, list[7]!]]) {
      set(twice)
      const error = await ctx.systemPrompt.assemble().then(() => undefined, (e: unknown) => e)
      expect(error).toBeInstanceOf(SystemPromptError)
      expect((error as SystemPromptError).code).toBe('DUPLICATE_TOOL')
      expect((error as SystemPromptError).message).toMatch(/is contributed twice by changing/)
    }
    set(list.slice(1))
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(pool.slice(1, 400).sort(compareCodeUnits))
  })

  it('follows a mutable list changed in place between two assemblies (the last answer is compared with a copy)', async () => {
    const ctx = await setup()
    const list = pool.slice(0, 400).map((name) => tool(name))
    await ctx.plugin({ name: 'mutable', inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(() => ({ schemas: list })) } })
    await ctx.systemPrompt.assemble()
    list.splice(3, 2, tool(pool[450]!))
    list.push(tool(pool[451]!))
    list.reverse()
    const expected = names(list).sort(compareCodeUnits)
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(expected)
    list.pop()
    expect(names((await ctx.systemPrompt.assemble()).tools)).toEqual(names(list).sort(compareCodeUnits))
  })

  it('refuses the reserved rest name when a change adds it to a long list', async () => {
    const { ctx, set } = await changingProvider()
    const list = pool.slice(0, 400).map((name) => tool(name))
    set(list)
    await ctx.systemPrompt.assemble()
    set([...list, tool('<unlisted-tools>')])
    const error = await ctx.systemPrompt.assemble().then(() => undefined, (e: unknown) => e)
    expect((error as SystemPromptError).code).toBe('RESERVED_TOOL_NAME')
  })
})
