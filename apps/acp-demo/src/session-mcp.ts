import type { McpServer } from '@agentclientprotocol/sdk'
import type { Logger } from 'cordis'
import { quote } from 'dsh-core'
import { ToolsMcpError } from 'dsh-harness'
import type { McpAttachment, ServerEntry } from './harness-types.ts'
import { AcpDemoError } from './errors.ts'

/** How the MCP servers an ACP client passes in `session/new` are run: through `ctx.mcp`, one agent each. */
export interface SessionMcpOptions {
  /** The harness's `checkMcp` and `attachMcp` (`ctx.mcp` underneath). */
  service: { check(servers: Record<string, ServerEntry>): void; connect(agentId: string, servers: Record<string, ServerEntry>): McpAttachment }
  startupTimeoutMs: number
  callTimeoutMs: number
  logger?: Logger
}

// the transports ctx.mcp speaks; ACP's deprecated `sse` is not one of them
const SUPPORTED = 'stdio (command) or "http" (url)'

const pairs = (list: unknown, what: string, fail: (text: string) => AcpDemoError): Record<string, string> | undefined => {
  if (list === undefined || list === null) return undefined
  if (!Array.isArray(list)) throw fail(`${what} must be a list of { name, value }, got ${JSON.stringify(list)}`)
  const map: Record<string, string> = Object.create(null)
  for (const item of list) {
    if (typeof item?.name !== 'string' || item.name === '' || typeof item.value !== 'string') {
      throw fail(`${what} entry ${JSON.stringify(item)} must be { name: non-empty string, value: string }`)
    }
    map[item.name] = item.value
  }
  return Object.keys(map).length ? map : undefined
}

/**
 * Turns the `mcpServers` of a `session/new` (ACP's list of `McpServer`) into the entries `ctx.mcp` takes,
 * and checks them there before the session exists. Every refusal names the server (or its index) and is an
 * `INVALID_MCP_SERVER` error, a JSON-RPC error `-32602` on the wire.
 */
export function sessionServerSpecs(servers: readonly McpServer[], options: Omit<SessionMcpOptions, 'logger'>): Record<string, ServerEntry> {
  const entries: Record<string, ServerEntry> = Object.create(null)
  servers.forEach((server, index) => {
    // read loosely: an editor may send what the SDK's types do not foresee
    const raw = server as { name?: unknown; type?: unknown; url?: unknown; headers?: unknown; command?: unknown; args?: unknown; env?: unknown }
    const label = typeof raw?.name === 'string' && raw.name !== '' ? `MCP server ${JSON.stringify(raw.name)}` : `mcpServers[${index}]`
    const fail = (text: string) => new AcpDemoError('INVALID_MCP_SERVER', `session/new: ${label}: ${text}`, { server: raw?.name ?? index })
    if (typeof raw?.name !== 'string' || raw.name === '') throw fail('needs a non-empty name')
    if (Object.hasOwn(entries, raw.name)) throw fail('is passed twice; each server needs its own name')
    const common = { startupTimeoutMs: options.startupTimeoutMs, callTimeoutMs: options.callTimeoutMs }
    if (raw.type === 'http') {
      const headers = pairs(raw.headers, 'headers', fail)
      if (typeof raw.url !== 'string') throw fail(`url ${JSON.stringify(raw.url)} must be a string`)
      entries[raw.name] = { ...common, url: raw.url, ...headers && { headers } }
    } else if (raw.type === undefined && raw.command !== undefined) {
      if (typeof raw.command !== 'string' || raw.command.trim() === '') throw fail(`command ${JSON.stringify(raw.command)} must be a program to run`)
      const args = raw.args ?? []
      if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string')) throw fail(`args must be a list of strings, got ${JSON.stringify(raw.args)}`)
      const env = pairs(raw.env, 'env', fail)
      entries[raw.name] = { ...common, command: raw.command, args, ...env && { env } }
    } else {
      throw fail(`transport ${JSON.stringify(raw.type ?? 'none')} is not supported; this agent connects ${SUPPORTED} servers (its initialize answer says mcpCapabilities.sse: false)`)
    }
  })
  try {
    options.service.check(entries)
  } catch (error) {
    // ctx.mcp names the refused entry as typed data
    if (!ToolsMcpError.is(error, 'INVALID_CONFIG') || error.details.server === undefined) throw error
    const { server, reason } = error.details
    throw new AcpDemoError('INVALID_MCP_SERVER', `session/new: MCP server ${quote(server)}: ${reason}`, { server })
  }
  return entries
}

/** The MCP servers of each session: connected through `ctx.mcp` for its agent alone, closed with it. */
export class SessionMcpServers {
  private readonly running = new Map<string, McpAttachment>()

  constructor(private readonly options: SessionMcpOptions) {}

  /** Starts a session's servers in parallel; `started(agentId)` resolves once each listed or timed out. */
  open(agentId: string, entries: Record<string, ServerEntry>): void {
    const names = Object.keys(entries)
    if (!names.length) return
    this.running.set(agentId, this.options.service.connect(agentId, entries))
    this.options.logger?.debug('session %s: connecting MCP server(s) %s', agentId, names.join(', '))
  }

  /** Resolves once the session's servers have each listed their tools, failed, or passed their startup timeout. */
  started(agentId: string): Promise<void> {
    return this.running.get(agentId)?.started ?? Promise.resolve()
  }

  /** Stops a session's servers, removes their tools and forgets their outages. */
  async close(agentId: string): Promise<void> {
    const running = this.running.get(agentId)
    this.running.delete(agentId)
    await running?.dispose()
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((agentId) => this.close(agentId)))
  }
}
