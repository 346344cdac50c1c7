import { Context } from 'cordis'
import SystemPrompt, { TOOL_ORDER_REST, compareCodeUnits, type ToolSchema } from 'dsh-system-prompt'
import { round, seeded, shuffle, sideBySide } from './measure.ts'

const PROVIDERS = 4

function makeTools(n: number, random: () => number): ToolSchema[] {
  const tools = Array.from({ length: n }, (_, i) => ({
    name: `tool_${Math.floor(random() * 1e9).toString(36)}_${i}`,
    description: `Tool number ${i}, which does one thing well.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'a path' },
        limit: { type: 'integer', minimum: 1 },
        recursive: { type: 'boolean' },
        pattern: { type: 'string' },
        mode: { type: 'string', enum: ['fast', 'full'] },
      },
      required: ['path'],
    },
  }))
  return shuffle(tools, random)
}

/** Providers hand back one frozen array per membership state, as ToolRuntime does; `cold` hands a new one each call. */
async function service(tools: ToolSchema[], toolOrder?: string[], cold = false) {
  const ctx = new Context()
  await ctx.plugin(SystemPrompt, (toolOrder ? { toolOrder } : {}) as any)
  for (let p = 0; p < PROVIDERS; p++) {
    const schemas = Object.freeze(tools.filter((_, i) => i % PROVIDERS === p))
    const provide = cold ? () => ({ schemas: [...schemas] }) : () => ({ schemas })
    await ctx.plugin({ name: `provider-${p}`, inject: ['systemPrompt'], apply: (ctx) => { ctx.systemPrompt.tools(provide) } })
  }
  return ctx.systemPrompt
}

/** assemble() against the cost of sorting the same names, its growth with N, and the cost of a toolOrder. */
export async function run(): Promise<Record<string, number>> {
  const random = seeded(42)
  const results: Record<string, number> = {}
  const medians: Record<number, { unlisted: number; listed: number; sort: number; cold: number }> = {}
  for (const n of [100, 1000, 10000]) {
    const tools = makeTools(n, random)
    const names = tools.map((tool) => tool.name)
    const listed = shuffle(names, random).slice(0, n / 2)
    const plain = await service(tools)
    const ordered = await service(tools, [...listed.slice(0, n / 4), TOOL_ORDER_REST, ...listed.slice(n / 4)])
    const cold = await service(tools, undefined, true)
    const rounds = n >= 10000 ? 40 : 200
    const m = await sideBySide({
      sort: () => [...names].sort(compareCodeUnits),
      unlisted: () => plain.assemble(),
      listed: () => ordered.assemble(),
      cold: () => cold.assemble(),
    }, rounds)
    medians[n] = m as any
    results[`assemble_ms_n${n}`] = round(m.unlisted, 4)
  }
  results.assemble_vs_sort_n1000 = round(medians[1000].unlisted / medians[1000].sort)
  results.growth_10000_over_1000 = round(medians[10000].unlisted / medians[1000].unlisted)
  results.cold_assemble_vs_sort_n1000 = round(medians[1000].cold / medians[1000].sort)
  results.cold_growth_10000_over_1000 = round(medians[10000].cold / medians[1000].cold)
  results.listed_half_over_unlisted_n1000 = round(medians[1000].listed / medians[1000].unlisted)
  return results
}

export const targets = {
  assemble_vs_sort_n1000: 5,
  growth_10000_over_1000: 15,
  listed_half_over_unlisted_n1000: 2,
}
