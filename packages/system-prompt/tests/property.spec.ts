import { Context } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compareCodeUnits, type ToolSchema } from 'dsh-core'
import SystemPrompt, { TOOL_ORDER_REST } from '../src/index.ts'
import { tool } from './setup.ts'

const alphabet = [...'aAbBzZ_-09', 'é', 'ß', 'Ω', 'ж', '中', '\u{1F600}']
const toolName = fc.array(fc.constantFrom(...alphabet), { minLength: 1, maxLength: 6 }).map((chars) => chars.join(''))

const scenario = fc
  .uniqueArray(toolName, { minLength: 1, maxLength: 24 })
  .chain((toolNames) => fc.record({
    toolNames: fc.constant(toolNames),
    providerOf: fc.array(fc.nat(4), { minLength: toolNames.length, maxLength: toolNames.length }),
    delays: fc.array(fc.array(fc.nat(8), { minLength: 5, maxLength: 5 }), { minLength: 3, maxLength: 3 }),
    listed: fc.subarray(toolNames),
    restAt: fc.nat(),
  }))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Loads each provider as its own plugin that registers after its own random delay. */
async function assembleWith(groups: ToolSchema[][], delays: number[], toolOrder?: string[]) {
  const ctx = new Context()
  await ctx.plugin(SystemPrompt, toolOrder ? { toolOrder } : {} as any)
  const loads = groups.map((schemas, index) => ctx.plugin({
    name: `provider-${index}`,
    inject: ['systemPrompt'],
    async apply(ctx: Context) {
      await sleep(delays[index])
      ctx.systemPrompt.tools(() => ({ schemas }))
    },
  }))
  await Promise.all(loads)
  return (await ctx.systemPrompt.assemble()).tools
}

describe('property: registration timing never shows in the assembled tools', () => {
  it('gives identical bytes across random load orders, in the rule\'s order', async () => {
    await fc.assert(fc.asyncProperty(scenario, fc.boolean(), async ({ toolNames, providerOf, delays, listed, restAt }, configured) => {
      const groups: ToolSchema[][] = [[], [], [], [], []]
      toolNames.forEach((name, index) => groups[providerOf[index]].push(tool(name)))
      const order = configured ? [...listed.slice(0, restAt % (listed.length + 1)), TOOL_ORDER_REST, ...listed.slice(restAt % (listed.length + 1))] : undefined
      const runs = await Promise.all(delays.map((delay) => assembleWith(groups, delay, order)))
      const bytes = runs.map((tools) => JSON.stringify(tools))
      expect(new Set(bytes).size).toBe(1)

      const unlisted = toolNames.filter((name) => !listed.includes(name) || !configured).sort(compareCodeUnits)
      const expected = order ? order.flatMap((name) => name === TOOL_ORDER_REST ? unlisted : [name]) : unlisted
      expect(runs[0].map((t) => t.name)).toEqual(expected)
    }), { numRuns: 60 })
  })
})
