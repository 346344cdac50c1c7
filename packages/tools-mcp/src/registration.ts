import type { Context } from 'cordis'
import type ToolRuntime from 'dsh-tools'
import type { ExecutableTool } from 'dsh-tools'

/** Who a connection's tools are for: every agent (the app's servers), or one agent alone. */
export interface ToolScope {
  agentId?: string
}

/**
 * The effect label each MCP tool registration carries, for diagnostics only: the server is recorded as typed
 * data in the tool's origin (`tools.origin(name).server`), which is what inspection reads.
 */
export function registrationLabel(tool: string, server: string): string {
  return `tools-mcp.register(${tool} from server ${JSON.stringify(server)})`
}

/** The effect label of one listing's tools registered together: their names as a JSON list. */
export function batchRegistrationLabel(tools: readonly string[], server: string): string {
  return registrationLabel(JSON.stringify(tools), server)
}

/** Registers one tool in `ctx` (the connecting plugin's context) under its own effect; returns its disposer. */
export function registerOne(ctx: Context, definition: ExecutableTool, server: string, scope: ToolScope): () => Promise<void> {
  return ctx.effect(() => ctx.tools.register(definition, { server, ...scope }), registrationLabel(definition.name, server))
}

/**
 * Registers one server's new tools in one `tools.registerMany()` call under one effect; each returned
 * disposer removes its tool, and the last one ends the effect, so re-listings leave no empty effects behind.
 */
export function registerListing(ctx: Context, definitions: ExecutableTool[], server: string, scope: ToolScope): (() => Promise<void>)[] {
  let batch: ReturnType<ToolRuntime['registerMany']> | undefined
  const end = ctx.effect(() => (batch = ctx.tools.registerMany(definitions, { server, ...scope })), batchRegistrationLabel(definitions.map((tool) => tool.name), server))
  let live = definitions.length
  return batch!.each.map((dispose) => {
    let done = false
    return async () => {
      if (done) return
      done = true
      await dispose()
      if (--live === 0) await end()
    }
  })
}
