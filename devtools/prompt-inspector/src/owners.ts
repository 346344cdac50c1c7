import type { Context } from 'cordis'
import type { BootedApp } from 'dsh-app-boot'
import type {} from 'dsh-tools'

/** Who put a tool into the prompt: the plugin, the app-file entry it runs under, and for an MCP tool its server. */
export interface ToolOwner {
  plugin: string
  entry: string | undefined
  /** The MCP server a `dsh-tools-mcp` tool came from. */
  server?: string
}

/**
 * Tool name → owner. `systemPrompt` knows only the provider, which for registry tools is always
 * `ToolRuntime`; the registry records each registration's origin (`tools.origin(name)`: plugin, entry,
 * server), so that is the owner. A tool from another provider is owned by the providing plugin, under
 * the one app-file entry that runs a plugin of that name, if exactly one does.
 */
export function findOwners(ctx: Context, entries: BootedApp['entries'], providers: ReadonlyMap<string, string>): Map<string, ToolOwner> {
  const tools = ctx.get('tools')
  const owners = new Map<string, ToolOwner>()
  for (const [tool, provider] of providers) {
    const origin = tools?.origin(tool)
    if (origin) {
      owners.set(tool, origin.server === undefined ? { plugin: origin.plugin, entry: origin.entry } : { ...origin })
      continue
    }
    const running = entries.filter((entry) => entry.fiber?.name === provider)
    owners.set(tool, { plugin: provider, entry: running.length === 1 ? running[0]!.id : undefined })
  }
  return owners
}
