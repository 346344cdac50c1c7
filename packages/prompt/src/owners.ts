import type { Context } from 'cordis'
import type { BootedEntry } from 'dsh-app-boot'
import { allFibers, effectLabels, entryOf } from './fibers.ts'

/** Who put a tool into the prompt: the plugin (fiber name) and the app-file entry it runs under. */
export interface ToolOwner {
  plugin: string
  entry: string | undefined
  /** The MCP server a `dsh-tools-mcp` tool came from. */
  server?: string
}

const REGISTER = /^tools\.register\((.*)\)$/
const PROVIDER = 'systemPrompt.tools()'
// the label dsh-tools-mcp gives each registration (its `registrationLabel`); the server name is JSON
const MCP = /^tools-mcp\.register\((.*) from server ("(?:[^"\\]|\\.)*")\)$/

/**
 * Tool name → owner. `systemPrompt` only knows the provider (for registry tools that is always
 * `ToolRuntime`), so registry tools are traced to the plugin whose `tools.register(name)` effect is live.
 */
export function findOwners(ctx: Context, entries: readonly BootedEntry[], providers: ReadonlyMap<string, string>): Map<string, ToolOwner> {
  const registered = new Map<string, ToolOwner>()
  const servers = new Map<string, string>()
  const providerFibers = new Map<string, ToolOwner[]>()
  for (const fiber of allFibers(ctx)) {
    const entry = entryOf(fiber, entries)?.id
    for (const label of effectLabels(fiber)) {
      const match = REGISTER.exec(label)
      const mcp = MCP.exec(label)
      if (mcp) {
        // one tool, or a listing registered at once (`batchRegistrationLabel`: a JSON list of names)
        const tools = mcp[1].startsWith('[') ? JSON.parse(mcp[1]) as string[] : [mcp[1]]
        for (const tool of tools) servers.set(tool, JSON.parse(mcp[2]) as string)
      } else if (match) registered.set(match[1], { plugin: fiber.name, entry })
      else if (label === PROVIDER) {
        const list = providerFibers.get(fiber.name) ?? []
        list.push({ plugin: fiber.name, entry })
        providerFibers.set(fiber.name, list)
      }
    }
  }
  // The tool runtime records which plugin registered each tool (its registrations share one effect per plugin).
  const runtime = ctx.get('tools') as { ownerOf?(name: string): Context['fiber'] | undefined } | undefined
  const owners = new Map<string, ToolOwner>()
  for (const [tool, provider] of providers) {
    const candidates = providerFibers.get(provider)
    const viaProvider = candidates?.length === 1 ? candidates[0] : { plugin: provider, entry: undefined }
    const fiber = runtime?.ownerOf?.(tool)
    const viaRuntime = fiber && { plugin: fiber.name, entry: entryOf(fiber, entries)?.id }
    const owner = viaRuntime || (registered.get(tool) ?? viaProvider)
    const server = servers.get(tool)
    owners.set(tool, server === undefined ? owner : { ...owner, server })
  }
  return owners
}
