import { Context } from 'cordis'
import { compareCodeUnits, type ToolSchema } from 'dsh-core'
import SystemPrompt, { TOOL_ORDER_REST } from 'dsh-system-prompt'
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

/**
 * assemble() against the cost of sorting the same names, its growth with N, and the cost of a toolOrder.
 * Every function is measured in the same rounds, so growth and cost ratios share one machine state.
 */
export async function run(): Promise<Record<string, number>> {
  const random = seeded(42)
  const fns: Record<string, () => unknown> = {}
  for (const n of [100, 1000, 10000]) {
    const tools = makeTools(n, random)
    const names = tools.map((tool) => tool.name)
    const listed = shuffle(names, random).slice(0, n / 2)
    const plain = await service(tools)
    const ordered = await service(tools, [...listed.slice(0, n / 4), TOOL_ORDER_REST, ...listed.slice(n / 4)])
    const cold = await service(tools, undefined, true)
    // 15 prefix groups (tool_1* … tool_f*, leading digits every size of N fills) around the rest entry, arranged anew on every call
    const groups = [...'123456789abcdef'].map((c) => `tool_${c}*`)
    const grouped = await service(tools, [...groups.slice(0, 8), TOOL_ORDER_REST, ...groups.slice(8)], true)
    fns[`sort_${n}`] = () => [...names].sort(compareCodeUnits)
    fns[`unlisted_${n}`] = () => plain.assemble()
    fns[`listed_${n}`] = () => ordered.assemble()
    fns[`cold_${n}`] = () => cold.assemble()
    fns[`cold_grouped_${n}`] = () => grouped.assemble()
  }
  const m = await sideBySide(fns, 150, 20)
  return {
    assemble_ms_n100: round(m.unlisted_100, 4),
    assemble_ms_n1000: round(m.unlisted_1000, 4),
    assemble_ms_n10000: round(m.unlisted_10000, 4),
    assemble_vs_sort_n1000: round(m.unlisted_1000 / m.sort_1000),
    growth_10000_over_1000: round(m.unlisted_10000 / m.unlisted_1000),
    cold_assemble_vs_sort_n1000: round(m.cold_1000 / m.sort_1000),
    cold_growth_10000_over_1000: round(m.cold_10000 / m.cold_1000),
    listed_half_over_unlisted_n1000: round(m.listed_1000 / m.unlisted_1000),
    cold_groups_over_cold_n1000: round(m.cold_grouped_1000 / m.cold_1000),
    cold_groups_growth_10000_over_1000: round(m.cold_grouped_10000 / m.cold_grouped_1000),
  }
}

export const targets = {
  assemble_vs_sort_n1000: 5,
  growth_10000_over_1000: 15,
  listed_half_over_unlisted_n1000: 2,
}
