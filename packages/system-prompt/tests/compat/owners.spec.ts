import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST } from '../../src/index.ts'
import { names, provide, setup, tool } from '../setup.ts'

const PROVIDERS: Record<string, string[]> = { p1: ['zeta', 'alpha'], p2: ['mid', 'beta'], p3: ['omega', 'aa'] }

describe('toolOwners() and inspect().owners', () => {
  it('iterate in canonical tool order whatever order the providers registered in', async () => {
    await fc.assert(fc.asyncProperty(fc.shuffledSubarray(Object.keys(PROVIDERS), { minLength: 3, maxLength: 3 }), fc.boolean(), async (order, listed) => {
      const ctx = await setup(listed ? { toolOrder: ['mid', TOOL_ORDER_REST, 'aa'] } : {})
      for (const name of order) await provide(ctx, name, PROVIDERS[name]!.map((n) => tool(n)))
      const canonical = names((await ctx.systemPrompt.assemble()).tools)
      const owners = ctx.systemPrompt.toolOwners()
      expect([...owners.keys()]).toEqual(canonical)
      expect([...(await ctx.systemPrompt.inspect()).owners.keys()]).toEqual(canonical)
      expect(owners.get('zeta')).toBe('p1')
      expect(owners.get('aa')).toBe('p3')
    }), { numRuns: 30 })
  })
})
