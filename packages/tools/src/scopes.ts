import { compareCodeUnits } from 'dsh-core'
import type { ToolProviderResult } from 'dsh-system-prompt'
import { ToolRegistry } from './registry.ts'
import type { ToolEntry } from './types.ts'

interface Merged {
  base: ToolProviderResult
  own: ToolProviderResult
  result: ToolProviderResult
}

/**
 * The tools registered for every agent, and per agent id the tools of that agent alone (e.g. the MCP
 * servers an editor passed for one ACP session). A name lives in one place per agent: two agents may each
 * hold their own tool of one name, but never beside a tool of that name registered for every agent.
 */
export class ToolScopes {
  readonly global = new ToolRegistry()
  private readonly agents = new Map<string, ToolRegistry>()
  /** Per agent, the merged provider answer while neither part changed (the assembly caches by identity). */
  private readonly merged = new Map<string, Merged>()

  /** The registry a registration goes to; an agent's is created on first use. */
  registryFor(agentId: string | undefined): ToolRegistry {
    if (agentId === undefined) return this.global
    let registry = this.agents.get(agentId)
    if (!registry) this.agents.set(agentId, registry = new ToolRegistry())
    return registry
  }

  /** Forgets an agent's registry once its last tool is gone. */
  release(agentId: string | undefined): void {
    if (agentId === undefined || this.agents.get(agentId)?.names().length !== 0) return
    this.agents.delete(agentId)
    this.merged.delete(agentId)
  }

  /** The tool `name` stands for in an agent's view (or the global one). */
  get(name: string, agentId?: string): ToolEntry | undefined {
    return this.global.get(name) ?? (agentId === undefined ? undefined : this.agents.get(agentId)?.get(name))
  }

  /** Who holds `name` already, in words, seen from a registration for `agentId` (or for every agent). */
  holder(name: string, agentId: string | undefined): string | undefined {
    if (this.global.has(name)) return 'for every agent'
    if (agentId !== undefined) return this.agents.get(agentId)?.has(name) ? `for agent ${JSON.stringify(agentId)}` : undefined
    for (const [id, registry] of this.agents) if (registry.has(name)) return `for agent ${JSON.stringify(id)}`
    return undefined
  }

  /** Names in an agent's view (or the global one), code-unit order; `visible` keeps those the model sees. */
  names(agentId: string | undefined, visible = false): string[] {
    const parts = [this.global, ...agentId === undefined ? [] : [this.agents.get(agentId)].filter((r) => r !== undefined)]
    return parts.flatMap((registry) => registry.names(visible ? (entry) => registry.isVisible(entry) : undefined)).sort(compareCodeUnits)
  }

  /** The `systemPrompt.tools()` answer for one assembly: the global tools, plus the agent's own. */
  provide(agentId: string | undefined): ToolProviderResult {
    const base = this.global.provide()
    const registry = agentId === undefined ? undefined : this.agents.get(agentId)
    if (!registry) return base
    const own = registry.provide()
    const cached = this.merged.get(agentId!)
    if (cached?.base === base && cached.own === own) return cached.result
    const result: ToolProviderResult = Object.freeze({
      schemas: Object.freeze([...base.schemas, ...own.schemas]),
      knownNames: Object.freeze([...base.knownNames ?? [], ...own.knownNames ?? []]),
    })
    this.merged.set(agentId!, { base, own, result })
    return result
  }
}
