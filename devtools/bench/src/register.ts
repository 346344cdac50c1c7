import { Context } from 'cordis'
import SystemPrompt from 'dsh-system-prompt'
import ToolRuntime from 'dsh-tools'
import { round } from './measure.ts'

const N = 10_000
const ROUNDS = 5

/** 10,000 distinct MCP-like tools: every schema differs, so no sharing flatters the figure. */
function definitions(round: number, n = N) {
  return Array.from({ length: n }, (_, i) => ({
    name: `mcp__srv${i % 7}__tool_${round}_${i}`,
    description: `Tool ${i} of round ${round}: does one thing well.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: `path for tool ${i}` },
        limit: { type: 'integer', minimum: 1, maximum: 1000 + i },
        mode: { type: 'string', enum: ['fast', 'full'] },
      },
      required: ['path'],
    },
    execute: () => 'ok',
  }))
}

/**
 * Registering 10,000 tools through `ToolRuntime` (one plugin, one `registerMany`, as an MCP bridge does) against the one cold
 * `assemble()` that follows, which snapshots, sorts and merges them; plus the RSS the registration adds.
 * Alternated over a few rounds, each with a fresh context, medians reported. The one-by-one figure
 * registers the same listing with `register()` per tool, each call through a Cordis context proxy.
 */
export async function run(): Promise<Record<string, number>> {
  const registerMs: number[] = []
  const oneByOneMs: number[] = []
  const assembleMs: number[] = []
  const rssMb: number[] = []
  for (let r = 0; r < ROUNDS; r++) {
    const tools = definitions(r)
    const ctx = new Context()
    await ctx.plugin(SystemPrompt, {} as any)
    await ctx.plugin(ToolRuntime, {} as any)
    globalThis.gc?.()
    const rss = process.memoryUsage().rss
    let start = 0
    const fiber = await ctx.plugin({
      name: 'bench-mcp-bridge',
      inject: ['tools'],
      apply(ctx: Context) {
        start = performance.now()
        ctx.tools.registerMany(tools)
        registerMs.push(performance.now() - start)
      },
    })
    rssMb.push((process.memoryUsage().rss - rss) / 2 ** 20)
    start = performance.now()
    await ctx.systemPrompt.assemble()
    assembleMs.push(performance.now() - start)
    await fiber.dispose()
    // The same listing registered one call at a time, each through the plugin's Cordis context.
    const oneByOne = await ctx.plugin({
      name: 'bench-one-by-one',
      inject: ['tools'],
      apply(ctx: Context) {
        const begin = performance.now()
        for (const tool of tools) ctx.tools.register(tool)
        oneByOneMs.push(performance.now() - begin)
      },
    })
    await oneByOne.dispose()
  }
  return {
    ...await againstClone(),
    register_10000_ms: round(median(registerMs), 1),
    assemble_cold_10000_ms: round(median(assembleMs), 1),
    register_10000_over_assemble_cold_10000: round(median(registerMs) / median(assembleMs), 2),
    register_10000_rss_mb: round(median(rssMb), 1),
    register_10000_one_by_one_over_assemble_cold_10000: round(median(oneByOneMs) / median(assembleMs), 2),
  }
}

/**
 * 2,000 tools registered through the tools service as the apps mount it (dsh-system-prompt and dsh-tools in
 * one Cordis context, a plugin that registers them: `registerMany()` as dsh-tools-mcp does for a listing, and
 * `register()` per tool as dsh-tools-static does), each timed from loading that plugin until it is active,
 * against `structuredClone` of the same list (without `execute`, which cannot be cloned): the copy any
 * registry that keeps its own data pays. Alternated, a fresh context per round, medians.
 */
async function againstClone(): Promise<Record<string, number>> {
  const many: number[] = []
  const oneByOne: number[] = []
  const clone: number[] = []
  for (let r = 0; r < CLONE_ROUNDS; r++) {
    const batch = definitions(r, CLONE_N)
    const single = definitions(r + CLONE_ROUNDS, CLONE_N)
    const data = batch.map(({ execute, ...tool }) => tool)
    for (const [times, apply] of [
      [many, (ctx: Context) => { ctx.tools.registerMany(batch) }],
      [oneByOne, (ctx: Context) => { for (const tool of single) ctx.tools.register(tool) }],
    ] as const) {
      const ctx = new Context()
      await ctx.plugin(SystemPrompt, {} as any)
      await ctx.plugin(ToolRuntime, {} as any)
      const start = performance.now()
      await ctx.plugin({ name: 'bench-registrar', inject: ['tools'], apply })
      times.push(performance.now() - start)
    }
    const start = performance.now()
    structuredClone(data)
    clone.push(performance.now() - start)
  }
  return {
    register_2000_ms: round(median(many), 2),
    clone_2000_ms: round(median(clone), 2),
    register_2000_over_clone: round(median(many) / median(clone), 2),
    register_2000_one_by_one_over_clone: round(median(oneByOne) / median(clone), 2),
  }
}

const CLONE_N = 2000
const CLONE_ROUNDS = 21
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!

export const targets = { register_10000_over_assemble_cold_10000: 3, register_10000_rss_mb: 40, register_2000_over_clone: 4 }
