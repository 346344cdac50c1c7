import { Context } from 'cordis'
import { rawService, type ToolSchema } from 'dsh-core'
import SystemPrompt from 'dsh-system-prompt'
import { round, seeded, sideBySide } from './measure.ts'
import { freshSchemas, makeTools } from './system-prompt.ts'

type Provide = () => { schemas: ToolSchema[] }

/** One frozen list handed back on every call: the steady state of a registry that did not change. */
const steady = (tools: readonly ToolSchema[]): Provide => {
  const list = Object.freeze(tools.map((tool) => Object.freeze({ ...tool }))) as unknown as ToolSchema[]
  return () => ({ schemas: list })
}

/** dsh-system-prompt as the apps mount it (a Cordis service, a provider plugin), called on its raw service as the agent does. */
async function ours(provide: Provide) {
  const ctx = new Context()
  await ctx.plugin(SystemPrompt, {} as any)
  await ctx.plugin({ name: 'bench-provider', inject: ['systemPrompt'], apply: (ctx: Context) => { ctx.systemPrompt.tools(provide) } })
  const prompt = rawService(ctx.systemPrompt)
  return () => prompt.assemble()
}

/**
 * Loaded by a computed specifier, so the type checker never reads their declarations: `@deepseek-ai/cordis`
 * augments the `schemastery` module for the whole program, which breaks every Config schema of the workspace.
 */
const REFERENCE = { prompt: '@deepseek-ai/dsh-system-prompt', cordis: '@deepseek-ai/cordis' }

/** The published `@deepseek-ai/dsh-system-prompt` (a dev dependency of this package only), mounted the same way. */
async function reference(provide: Provide) {
  const { Context: ReferenceContext } = await import(REFERENCE.cordis)
  const { default: ReferencePrompt } = await import(REFERENCE.prompt)
  const ctx = new ReferenceContext()
  await ctx.plugin(ReferencePrompt, {})
  await ctx.plugin({ name: 'bench-provider', inject: ['systemPrompt'], apply: (ctx: any) => { ctx.systemPrompt.tools(provide) } })
  const prompt = ctx.systemPrompt
  return () => prompt.assemble()
}

/**
 * `assemble()` against the published reference on the same tools, side by side: a provider that builds new
 * schema objects on every call (both sides pay that construction), and one that hands back the same frozen
 * list. The two services must give the same tools in the same order, checked once before timing.
 */
export async function run(): Promise<Record<string, number>> {
  const fns: Record<string, () => unknown> = {}
  const random = seeded(7)
  for (const n of [400, 4000]) {
    const tools = makeTools(n, random)
    const fresh = freshSchemas(tools)
    for (const [shape, provider] of [['fresh', fresh], ['steady', steady(tools)]] as const) {
      const mine = await ours(provider)
      const theirs = await reference(provider)
      const [a, b] = [await mine(), await theirs()]
      if (JSON.stringify(a.tools.map((tool) => tool.name)) !== JSON.stringify(b.tools.map((tool: ToolSchema) => tool.name))) {
        throw new Error(`bench reference: the two services order the ${n} ${shape} tools differently`)
      }
      fns[`${shape}_ours_${n}`] = mine
      fns[`${shape}_reference_${n}`] = theirs
    }
    // what the provider's construction alone costs (read at 4,000 tools), timed after the services' calls
    if (n === 4000) fns.provider_4000 = fresh
  }
  const m = await sideBySide(fns, 120, 20)
  return {
    assemble_fresh_objects_over_reference_n400: round(m.fresh_ours_400 / m.fresh_reference_400),
    assemble_fresh_objects_over_reference_n4000: round(m.fresh_ours_4000 / m.fresh_reference_4000),
    assemble_steady_over_reference_n400: round(m.steady_ours_400 / m.steady_reference_400),
    assemble_steady_over_reference_n4000: round(m.steady_ours_4000 / m.steady_reference_4000),
    assemble_fresh_reference_ms_n4000: round(m.fresh_reference_4000, 3),
    // what the provider's construction alone costs, against the reference's whole call (both sides pay it)
    fresh_provider_over_reference_n4000: round(m.provider_4000 / m.fresh_reference_4000),
  }
}

export const targets = {
  assemble_fresh_objects_over_reference_n400: 0.6,
  assemble_fresh_objects_over_reference_n4000: 0.6,
  assemble_steady_over_reference_n400: 0.1,
  assemble_steady_over_reference_n4000: 0.1,
}
