/**
 * What happened to a tool source (an MCP server, say): it failed to start, its connection went away, or it
 * is back. Front doors show it to the person using them; the runtime remembers which sources are down, so a
 * call to one of their tools says why it cannot run.
 */
export interface ToolSourceStatus {
  /** The source as a person reads it, e.g. `MCP server "memory"`. */
  source: string
  /** The model-facing name prefix of the source's tools (`mcp__memory__`); a call to a missing tool with it is explained. */
  prefix: string
  event: 'failed' | 'exited' | 'reconnected'
  /** One line for a person, naming the source and why: `MCP server "memory" failed to start: Error: Cannot find module '/x.js'`. */
  message: string
  /** Set when the source serves one agent alone (an MCP server an ACP client passed for its session). */
  agentId?: string
}

const keyOf = (source: string, agentId: string | undefined) => JSON.stringify([source, agentId ?? null])

/** The sources that are down now, by source and agent; a `reconnected` status or `forget()` takes one out. */
export class ToolSources {
  private readonly down = new Map<string, ToolSourceStatus>()

  record(status: ToolSourceStatus): void {
    const key = keyOf(status.source, status.agentId)
    if (status.event === 'reconnected') this.down.delete(key)
    else this.down.set(key, status)
  }

  forget(source: string, agentId?: string): void {
    this.down.delete(keyOf(source, agentId))
  }

  /** The sources down now that an agent sees: those for every agent, plus its own with `agentId`; oldest first. */
  list(agentId?: string): ToolSourceStatus[] {
    return [...this.down.values()].filter((status) => status.agentId === undefined || status.agentId === agentId)
  }

  /** The down source whose tools `name` would be one of, for the `unknown tool` answer. */
  owning(name: string, agentId?: string): ToolSourceStatus | undefined {
    return this.list(agentId).find((status) => status.prefix !== '' && name.startsWith(status.prefix))
  }
}
