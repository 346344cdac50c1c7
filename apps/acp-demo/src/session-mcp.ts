import type { McpServer } from '@agentclientprotocol/sdk'
import type { Logger } from 'cordis'
import { messageOf } from 'dsh-core'
import { McpServerSet, checkConfig, type ServerConfig, type ServerSpec, type ServerStatus, type McpToolRef } from 'dsh-tools-mcp'
import type { ExecutableTool } from 'dsh-tools'
import { AcpDemoError } from './errors.ts'

/** How the MCP servers an ACP client passes in `session/new` are run. */
export interface SessionMcpOptions {
  /** Registers a tool for one agent alone; returns its disposer. */
  register(definition: ExecutableTool, ref: McpToolRef, agentId: string): () => unknown
  /** A session's server failed to start, exited or is back (once per outage); optional. */
  status?(status: ServerStatus, agentId: string): void
  /** The session's servers are closed: none of them is reported as down any more. */
  forget?(servers: readonly string[], agentId: string): void
  startupTimeoutMs: number
  callTimeoutMs: number
  logger: Logger
}

// the transports McpServerSet speaks; ACP's deprecated `sse` is not one of them
const SUPPORTED = 'stdio (command) or "http" (url)'
const RESTART_DELAY_MS = 500
const MAX_RESTART_DELAY_MS = 30_000

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
 * Checks the `mcpServers` of a `session/new` and turns them into server specs. Every refusal names the
 * server (or its index) and is an `INVALID_MCP_SERVER` error, a JSON-RPC error `-32602` on the wire.
 */
export function sessionServerSpecs(servers: readonly McpServer[], options: Pick<SessionMcpOptions, 'startupTimeoutMs' | 'callTimeoutMs'>): ServerSpec[] {
  const entries: Record<string, ServerConfig> = Object.create(null)
  servers.forEach((server, index) => {
    // read loosely: an editor may send what the SDK's types do not foresee
    const raw = server as { name?: unknown; type?: unknown; url?: unknown; headers?: unknown; command?: unknown; args?: unknown; env?: unknown }
    const label = typeof raw?.name === 'string' && raw.name !== '' ? `MCP server ${JSON.stringify(raw.name)}` : `mcpServers[${index}]`
    const fail = (text: string) => new AcpDemoError('INVALID_MCP_SERVER', `session/new: ${label}: ${text}`, { server: raw?.name ?? index })
    if (typeof raw?.name !== 'string' || raw.name === '') throw fail('needs a non-empty name')
    if (Object.hasOwn(entries, raw.name)) throw fail('is passed twice; each server needs its own name')
    const common = { args: [], startupTimeoutMs: options.startupTimeoutMs, callTimeoutMs: options.callTimeoutMs, disabled: false }
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
    return checkConfig({ servers: entries, restartDelayMs: RESTART_DELAY_MS, maxRestartDelayMs: MAX_RESTART_DELAY_MS })
  } catch (error) {
    // checkConfig names the server as `server "x": …`
    const message = (error as Error).message.replace(/^server /, 'MCP server ')
    const server = /^server ("(?:[^"\\]|\\.)*")/.exec((error as Error).message)?.[1]
    throw new AcpDemoError('INVALID_MCP_SERVER', `session/new: ${message}`, server ? { server: JSON.parse(server) } : {})
  }
}

interface Running {
  set: McpServerSet
  started: Promise<void>
  servers: string[]
}

/** The MCP servers of each session: connected for it alone, their tools registered for its agent, closed with it. */
export class SessionMcpServers {
  private readonly running = new Map<string, Running>()

  constructor(private readonly options: SessionMcpOptions) {}

  /** Starts a session's servers in parallel; `started(agentId)` resolves once each listed or timed out. */
  open(agentId: string, specs: readonly ServerSpec[]): void {
    if (!specs.length) return
    const { logger } = this.options
    const set = new McpServerSet(specs, {
      register: (definition, ref) => this.options.register(definition, ref, agentId),
      status: (status) => this.options.status?.(status, agentId),
    }, {
      log: {
        info: (text) => logger.info('session %s: %s', agentId, text),
        warn: (text) => logger.warn('session %s: %s', agentId, text),
        error: (text) => logger.error('session %s: %s', agentId, text),
        debug: (text) => logger.debug('session %s: %s', agentId, text),
      },
      restartDelayMs: RESTART_DELAY_MS,
      maxRestartDelayMs: MAX_RESTART_DELAY_MS,
    })
    const started = set.start().catch((error) => logger.error('session %s: MCP servers failed to start: %s', agentId, messageOf(error)))
    this.running.set(agentId, { set, started, servers: specs.map((spec) => spec.name) })
    logger.debug('session %s: connecting MCP server(s) %s', agentId, specs.map((spec) => spec.name).join(', '))
  }

  /** Resolves once the session's servers have each listed their tools, failed, or passed their startup timeout. */
  started(agentId: string): Promise<void> {
    return this.running.get(agentId)?.started ?? Promise.resolve()
  }

  /** Stops a session's servers and removes their tools. */
  async close(agentId: string): Promise<void> {
    const running = this.running.get(agentId)
    if (!running) return
    this.running.delete(agentId)
    await running.set.close()
    this.options.forget?.(running.servers, agentId)
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((agentId) => this.close(agentId)))
  }
}
