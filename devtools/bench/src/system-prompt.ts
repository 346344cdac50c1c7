import { Context } from 'cordis'
import { compareCodeUnits, rawService, type ToolSchema } from 'dsh-core'
import SystemPrompt, { TOOL_ORDER_REST } from 'dsh-system-prompt'
import ToolRuntime from 'dsh-tools'
import { round, seeded, shuffle, sideBySide } from './measure.ts'

const PROVIDERS = 4

export function makeTools(n: number, random: () => number): ToolSchema[] {
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

/** The raw system-prompt service with `tools` registered through ToolRuntime, a quarter by each of four plugins. */
async function viaRuntime(tools: ToolSchema[], toolOrder?: string[]) {
  const ctx = new Context()
  await ctx.plugin(SystemPrompt, (toolOrder ? { toolOrder } : {}) as any)
  await ctx.plugin(ToolRuntime, {} as any)
  for (let p = 0; p < PROVIDERS; p++) {
    const mine = tools.filter((_, i) => i % PROVIDERS === p).map((tool) => ({ ...tool, execute: () => 'ok' }))
    await ctx.plugin({ name: `bench-tools-${p}`, inject: ['tools'], apply: (ctx: Context) => { ctx.tools.registerMany(mine) } })
  }
  // One more plugin, kept for toggling a tool: a change to the tool set, as an MCP server re-listing makes.
  let owner!: Context
  await ctx.plugin({ name: 'bench-toggle', inject: ['tools'], apply: (ctx: Context) => { owner = ctx } })
  const extra = { name: 'zz_toggled_tool', description: 'Comes and goes.', parameters: { type: 'object', properties: {} }, execute: () => 'ok' }
  let remove: (() => Promise<void>) | undefined
  const toggle = async () => {
    if (remove) {
      await remove()
      remove = undefined
    } else remove = owner.tools.register(extra)
  }
  return { prompt: rawService(ctx.systemPrompt), toggle }
}

/** A provider's answer built anew on every call, parameters included, as a bridge mapping its tools each time does. */
export const freshSchemas = (tools: readonly ToolSchema[]) => (): { schemas: ToolSchema[] } => ({
  schemas: tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: JSON.parse(JSON.stringify(tool.parameters)) })),
})

/** dsh-system-prompt with a provider that builds new schema objects on every call (`freshSchemas`). */
async function freshObjects(tools: ToolSchema[]) {
  const ctx = new Context()
  await ctx.plugin(SystemPrompt, {} as any)
  const provide = freshSchemas(tools)
  await ctx.plugin({ name: 'bench-bridge', inject: ['systemPrompt'], apply: (ctx: Context) => { ctx.systemPrompt.tools(provide) } })
  return rawService(ctx.systemPrompt)
}

/** Warm calls of a few µs are timed in runs of this many, each sample divided by it (see `repeated`). */
const WARM_RUN = 20

/**
 * `fn` called WARM_RUN times back to back per sample, timed as one call: a single call of a few µs is at the
 * timer's resolution, and right after a cold assemble of another service it also pays that service's cache
 * misses, so the toolOrder ratio measured which function happened to run after which.
 */
function repeated(fn: () => Promise<unknown>): () => Promise<void> {
  return async () => {
    for (let i = 0; i < WARM_RUN; i++) await fn()
  }
}

/**
 * assemble() on the path the agent takes (tools registered through ToolRuntime, the raw service called),
 * led by the cold figure: the first assemble() after a change to the tool set (one tool registered or
 * removed, alternately), which re-reads the registry and sorts and merges again. Then the warm assemble()
 * against sorting the same names, its growth with N, the cost of a toolOrder, and a provider that builds
 * new objects every call against the floor. Every function is measured in the same rounds, so the ratios
 * share one machine state.
 */
export async function run(): Promise<Record<string, number>> {
  const random = seeded(42)
  const fns: Record<string, () => unknown> = {}
  for (const n of [100, 1000, 10000]) {
    const tools = makeTools(n, random)
    const names = tools.map((tool) => tool.name)
    const listed = shuffle(names, random).slice(0, n / 2)
    const plain = await viaRuntime(tools)
    const ordered = await viaRuntime(tools, [...listed.slice(0, n / 4), TOOL_ORDER_REST, ...listed.slice(n / 4)])
    fns[`sort_${n}`] = () => [...names].sort(compareCodeUnits)
    fns[`cold_${n}`] = async () => { await plain.toggle(); return plain.prompt.assemble() }
    fns[`unlisted_${n}`] = repeated(() => plain.prompt.assemble())
    fns[`listed_${n}`] = repeated(() => ordered.prompt.assemble())
    // 15 prefix groups (tool_1* … tool_f*, leading digits every size of N fills) around the rest entry
    const groups = [...'123456789abcdef'].map((c) => `tool_${c}*`)
    const grouped = await viaRuntime(tools, [...groups.slice(0, 8), TOOL_ORDER_REST, ...groups.slice(8)])
    fns[`cold_grouped_${n}`] = async () => { await grouped.toggle(); return grouped.prompt.assemble() }
    if (n === 1000) {
      const fresh = await freshObjects(tools)
      const objects = freshSchemas(tools)().schemas
      fns.fresh_1000 = () => fresh.assemble()
      // The floor: what any harness must do with N new objects — build them, copy each, sort them by code units.
      fns.floor_1000 = () => objects.map((tool) => ({ ...tool, parameters: JSON.parse(JSON.stringify(tool.parameters)) })).map((tool) => ({ ...tool })).sort((a, b) => compareCodeUnits(a.name, b.name))
    }
  }
  const m = await sideBySide(fns, 150, 20)
  for (const key of Object.keys(m)) if (key.startsWith('unlisted_') || key.startsWith('listed_')) m[key]! /= WARM_RUN
  return {
    cold_assemble_ms_n1000: round(m.cold_1000, 4),
    cold_assemble_vs_sort_n1000: round(m.cold_1000 / m.sort_1000),
    cold_growth_10000_over_1000: round(m.cold_10000 / m.cold_1000),
    assemble_ms_n100: round(m.unlisted_100, 4),
    assemble_ms_n1000: round(m.unlisted_1000, 4),
    assemble_ms_n10000: round(m.unlisted_10000, 4),
    assemble_vs_sort_n1000: round(m.unlisted_1000 / m.sort_1000),
    growth_10000_over_1000: round(m.unlisted_10000 / m.unlisted_1000),
    listed_half_over_unlisted_n1000: round(m.listed_1000 / m.unlisted_1000),
    assemble_new_objects_over_floor_n1000: round(m.fresh_1000 / m.floor_1000),
    cold_groups_over_cold_n1000: round(m.cold_grouped_1000 / m.cold_1000),
    cold_groups_growth_10000_over_1000: round(m.cold_grouped_10000 / m.cold_grouped_1000),
  }
}

export const targets = {
  assemble_vs_sort_n1000: 5,
  growth_10000_over_1000: 15,
  listed_half_over_unlisted_n1000: 2,
  assemble_new_objects_over_floor_n1000: 3,
}
