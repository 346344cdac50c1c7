import { quote } from 'dsh-core'
import type { ToolSourceStatus } from 'dsh-tools'
import type { ServerStatus } from './server-set.ts'

/** How a server is named as a tool source (`tools.reportSource`, `tools.forgetSource`): `MCP server "memory"`. */
export function sourceName(server: string): string {
  return `MCP server ${quote(server)}`
}

/** A server's status as the tool runtime records it; `agentId` for a server that serves one agent alone. */
export function toSourceStatus(status: ServerStatus, agentId?: string): ToolSourceStatus {
  return {
    source: sourceName(status.server),
    prefix: status.prefix,
    event: status.event,
    message: status.message,
    ...agentId !== undefined && { agentId },
  }
}
