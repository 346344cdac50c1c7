import type {} from 'dsh-llm'
import type { Context } from 'cordis'
import type { ToolSchema } from 'dsh-core'
import { SystemPromptError, type AssembleContext } from 'dsh-system-prompt'
import { renderContextSections, renderPrompt } from 'dsh-system-prompt/bytes'
import type { McpService } from 'dsh-tools-mcp'
import { PromptInspectorError } from '../errors.ts'
import { loopContext, withSettledApp } from '../inspect.ts'
import { findOwners } from '../owners.ts'
import { renderSections } from '../sections.ts'

/** One MCP server's normalized spec, as `ctx.mcp.servers()` lists it. */
type ServerSpec = ReturnType<McpService['servers']>[number]['spec']

/** One assembly as the lint compares it. */
export interface AssemblySnapshot {
  /** Each section: its template (before interpolation), the variables it uses, and its rendered text. */
  sections: { name: string; template: string; variables: string[]; text: string }[]
  variables: Record<string, string | undefined>
  system: string
  tools: ToolSchema[]
}

/** One boot of the app: its assemblies, who owns each tool, and the MCP servers it runs. */
export interface BootSnapshot {
  context: AssembleContext
  assemblies: AssemblySnapshot[]
  owners: Map<string, { entry: string | null; server: string | null }>
  mcpServers: ServerSpec[]
  /**
   * The cache rules of the loop's model (its provider profile) and its context window (undefined when the
   * adapter declares none), when the app runs a loop with an llm.
   */
  cache: { model: string; provider: string; minimumTokens: number; contextWindow: number | undefined } | null
}

const PLACEHOLDER = /\{\{([a-z][a-z0-9_]*)\}\}/g

/**
 * Boots the app file as `inspect` does from its `text` (read once by the caller), settles, and assembles
 * `assemblies` times with the loop's context.
 */
export async function snapshotBoot(file: string, text: string, settleMs: number, assemblies: number): Promise<BootSnapshot> {
  return withSettledApp({ file, text, settleMs }, async (app) => {
    const ctx: Context = app.ctx
    const systemPrompt = ctx.get('systemPrompt')
    if (!systemPrompt) throw new PromptInspectorError('MISCONFIGURED', `${file}: no entry provides the systemPrompt service, so there is no prompt to lint`)
    const context = loopContext(ctx)
    const taken: AssemblySnapshot[] = []
    let owners = new Map<string, string>()
    for (let round = 0; round < assemblies; round++) {
      try {
        const inspection = await systemPrompt.inspect(context)
        // every turn renders the runtime context too (the text after the prefix): a variable it cannot fill
        // would fail every turn, so it fails the lint the same way
        renderContextSections(inspection.assembly)
        owners = inspection.owners
        const rendered = new Map(renderSections(inspection.assembly, inspection.sectionOrders).map((section) => [section.name, section.text]))
        taken.push({
          sections: inspection.assembly.sections.map((section) => ({
            name: section.name,
            template: section.text,
            variables: section.interpolate === false ? [] : [...new Set([...section.text.matchAll(PLACEHOLDER)].map((match) => match[1]!))],
            text: rendered.get(section.name) ?? '',
          })),
          variables: { ...inspection.assembly.variables },
          system: renderPrompt(inspection.assembly),
          tools: inspection.assembly.tools,
        })
      } catch (error) {
        if (SystemPromptError.is(error)) throw new PromptInspectorError('MISCONFIGURED', error.message, { cause: error })
        throw error
      }
    }
    const found = findOwners(ctx, app.entries, owners)
    const byTool = new Map([...found].map(([name, owner]) => [name, { entry: owner.entry ?? null, server: owner.server ?? null }]))
    const llm = ctx.get('llm')
    const model = typeof context.model === 'string' ? context.model : undefined
    let cache: BootSnapshot['cache'] = null
    if (llm && model) {
      const policy = llm.cachePolicy(model)
      cache = { model, provider: policy.profile.id, minimumTokens: policy.minimumTokens, contextWindow: llm.contextWindow(model) }
    }
    return { context, assemblies: taken, owners: byTool, mcpServers: mcpServersOf(ctx), cache }
  })
}

/**
 * The app file's MCP servers (those of every agent) as `ctx.mcp` runs them, with their secrets: the lint
 * starts each one again to compare its listings.
 */
function mcpServersOf(ctx: Context): ServerSpec[] {
  return ctx.get('mcp')?.servers({ agentId: null, secrets: true }).map((server) => server.spec) ?? []
}
