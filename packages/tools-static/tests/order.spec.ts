import { compareCodeUnits } from 'dsh-core'
import type { Context } from 'cordis'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TOOL_ORDER_REST } from 'dsh-system-prompt'
import { assembledNames, loadStatic, setup, sleep } from './setup.ts'

const toolName = fc.stringMatching(/^[a-zA-Z0-9_-]{1,8}$/)
const MAX_DELAY = 15

/** Tools with random delays, split over up to three tools-static plugins (the registration race). */
const scenario = fc.uniqueArray(toolName, { minLength: 1, maxLength: 8 }).chain((names) => fc.record({
  names: fc.constant(names),
  delays: fc.array(fc.nat({ max: MAX_DELAY }), { minLength: names.length, maxLength: names.length }),
  plugins: fc.array(fc.nat({ max: 2 }), { minLength: names.length, maxLength: names.length }),
  listed: fc.subarray(names),
  listedFirst: fc.boolean(),
}))

async function race(names: string[], delays: number[], plugins: number[], prompt = {}) {
  const { ctx } = await setup(prompt)
  const groups: { name: string; description: string; delayMs: number }[][] = [[], [], []]
  names.forEach((name, index) => groups[plugins[index]].push({ name, description: `tool ${name}`, delayMs: delays[index] }))
  await Promise.all(groups.map((tools) => loadStatic(ctx, { tools })))
  await sleep(MAX_DELAY + 15)
  return ctx
}

describe('tools-static and the canonical tool order', () => {
  it('assembles code-unit order whatever the delays and plugin split', async () => {
    await fc.assert(fc.asyncProperty(scenario, async ({ names, delays, plugins }) => {
      const ctx = await race(names, delays, plugins)
      expect(await assembledNames(ctx)).toEqual([...names].sort(compareCodeUnits))
    }), { numRuns: 25 })
  })

  it('assembles the toolOrder policy whatever the delays and plugin split', async () => {
    await fc.assert(fc.asyncProperty(scenario, async ({ names, delays, plugins, listed, listedFirst }) => {
      const toolOrder = listedFirst ? [...listed, TOOL_ORDER_REST] : [TOOL_ORDER_REST, ...listed]
      const ctx = await race(names, delays, plugins, { toolOrder })
      const rest = names.filter((name) => !listed.includes(name)).sort(compareCodeUnits)
      expect(await assembledNames(ctx)).toEqual(listedFirst ? [...listed, ...rest] : [...rest, ...listed])
    }), { numRuns: 25 })
  })

  it('gives the same assembly for opposite registration orders', async () => {
    const registered = (ctx: Context) => {
      const order: string[] = []
      ctx.on('tools/change', (change) => { if (change.action === 'register') order.push(change.name) })
      return order
    }
    const { ctx: a } = await setup()
    const { ctx: b } = await setup()
    const orderA = registered(a)
    const orderB = registered(b)
    await loadStatic(a, { tools: [{ name: 'read_file', description: 'reads' }, { name: 'apply_patch', description: 'patches', delayMs: 10 }] })
    await loadStatic(b, { tools: [{ name: 'read_file', description: 'reads', delayMs: 10 }, { name: 'apply_patch', description: 'patches' }] })
    await sleep(30)
    expect(orderA).toEqual(['read_file', 'apply_patch'])
    expect(orderB).toEqual(['apply_patch', 'read_file'])
    expect(await a.systemPrompt.assemble()).toEqual(await b.systemPrompt.assemble())
    expect(await assembledNames(a)).toEqual(['apply_patch', 'read_file'])
  })
})
