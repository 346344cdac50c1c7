import { compareCodeUnits, quote } from 'dsh-core'
import { ToolRegistry } from './registry.ts'
import type { ToolEntry } from './types.ts'

/** Puts an agent's registry into that agent's prompt scope; returns what takes it out again. */
export type AttachScope = (agentId: string, registry: ToolRegistry) => () => unknown

/**
 * The tools registered for every agent, and per agent id the tools of that agent alone (e.g. the MCP
 * servers an editor passed for one ACP session). A name lives in one place per agent: two agents may each
 * hold their own tool of one name, but never beside a tool of that name registered for every agent.
 */
export class ToolScopes {
  readonly global = new ToolRegistry()
  private readonly agents = new Map<string, ToolRegistry>()
  private readonly detach = new Map<string, () => unknown>()

  constructor(private readonly attach: AttachScope) {}

  /** The registry a registration goes to; an agent's is created on first use. */
  registryFor(agentId: string | undefined): ToolRegistry {
    if (agentId === undefined) return this.global
    let registry = this.agents.get(agentId)
    if (registry) return registry
    registry = new ToolRegistry()
    this.detach.set(agentId, this.attach(agentId, registry))
    this.agents.set(agentId, registry)
    return registry
  }

  /** Forgets an agent's registry once its last tool is gone. */
  release(agentId: string | undefined): void {
    if (agentId === undefined || this.agents.get(agentId)?.size !== 0) return
    this.agents.delete(agentId)
    this.detach.get(agentId)?.()
    this.detach.delete(agentId)
  }

  /** The tool `name` stands for in an agent's view (or the global one). */
  get(name: string, agentId?: string): ToolEntry | undefined {
    return this.global.get(name) ?? (agentId === undefined ? undefined : this.agents.get(agentId)?.get(name))
  }

  /** Who holds `name` already, in words, seen from a registration for `agentId` (or for every agent). */
  holder(name: string, agentId: string | undefined): string | undefined {
    if (this.global.has(name)) return 'for every agent'
    if (agentId !== undefined) return this.agents.get(agentId)?.has(name) ? `for agent ${quote(agentId)}` : undefined
    for (const [id, registry] of this.agents) if (registry.has(name)) return `for agent ${quote(id)}`
    return undefined
  }

  /** Names in an agent's view (or the global one), code-unit order; `visible` keeps those the model sees. */
  names(agentId: string | undefined, visible = false): string[] {
    const parts = [this.global, ...agentId === undefined ? [] : [this.agents.get(agentId)].filter((r) => r !== undefined)]
    return parts.flatMap((registry) => registry.names(visible ? (entry) => registry.isVisible(entry) : undefined)).sort(compareCodeUnits)
  }
}
