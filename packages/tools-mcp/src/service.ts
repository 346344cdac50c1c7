import { Service, type Context, type Logger } from 'cordis'
import { describeValue, rawService } from 'dsh-core'
import type ToolRuntime from 'dsh-tools'
import { DEFAULT_RESTART, checkEntries, type RestartOptions, type ServerEntry, type ServerSpec } from './config.ts'
import { Attachment, type McpAttachment, type McpServerState } from './attachment.ts'
import { ToolsMcpError } from './errors.ts'

declare module 'cordis' {
  interface Context {
    mcp: McpService
  }
}

/** One running MCP server, as `ctx.mcp.servers()` lists it. */
export interface McpServerInfo {
  /** The entry's name: its tools are `mcp__<name>__<tool>`. */
  name: string
  /** The agent it serves alone; absent for a server of every agent (the app file's). */
  agentId?: string
  /** Its checked spec; `env` values, `headers` values and URL credentials read `<redacted>` unless `{ secrets: true }`. */
  spec: ServerSpec
  state: McpServerState
  /** For `failed` and `exited`: the one line the outage was reported with. */
  message?: string
}

export interface McpServersOptions {
  /** Only the servers of this agent (a string), or only those of every agent (`null`); default all. */
  agentId?: string | null
  /** Leave `env`, `headers` and URL credentials as they are (for a caller that starts the server again). */
  secrets?: boolean
}

/** How `connect()` restarts a server that failed or exited; the app file's defaults (500 ms doubling up to 30 s). */
export type McpConnectOptions = Partial<RestartOptions>

export const REDACTED = '<redacted>'

/**
 * `ctx.mcp`: the MCP servers of the app and of single agents. `connect()` starts servers and registers their
 * tools (for every agent, or for one agent alone) in the caller's context; `servers()` lists what runs, with
 * each server's state. Disposing the service (closing the app) closes every connection.
 */
export class McpService extends Service {
  static readonly inject = ['tools']

  private readonly attachments = new Set<Attachment>()
  private readonly tools: ToolRuntime
  private readonly logger: Logger

  constructor(ctx: Context) {
    super(ctx, 'mcp')
    this.tools = rawService(ctx.tools)
    this.logger = ctx.logger('tools-mcp')
    ctx.effect(() => () => Promise.all([...this.attachments].map((attachment) => attachment.dispose())).then(() => {}), 'mcp: close every connection')
  }

  /**
   * Connects `servers` (entries as in the app file's `servers` map: name → `{ command, args, env, cwd }` or
   * `{ url, headers }`, with `startupTimeoutMs`, `callTimeoutMs`, `disabled`) for `agentId` alone, or for
   * every agent with `null`. Checks every entry first: a bad one throws one `ToolsMcpError` `INVALID_CONFIG`
   * naming it (`details.server`, `details.reason`) and nothing starts. The tools are registered in the
   * caller's context (one `registerMany` per listing), so unloading the caller closes the connection too.
   */
  connect(agentId: string | null, servers: Record<string, ServerEntry>, options: McpConnectOptions = {}): McpAttachment {
    const self = rawService(this)
    // the caller's context: Cordis answers a service's tracked `ctx` with the context it was read from
    const caller = (this as unknown as { ctx: Context }).ctx
    if (agentId !== null && (typeof agentId !== 'string' || agentId === '')) {
      throw new ToolsMcpError('INVALID_CONFIG', `mcp.connect() takes agentId as a non-empty string, or null for every agent; got ${describeValue(agentId)}`)
    }
    const restart = { ...DEFAULT_RESTART, ...options }
    const specs = checkEntries(servers, restart)
    const attachment: Attachment = new Attachment({
      caller,
      tools: self.tools,
      logger: self.logger,
      agentId: agentId ?? undefined,
      specs,
      ...restart,
      closed: (closing) => self.attachments.delete(closing),
    })
    self.attachments.add(attachment)
    return attachment
  }

  /**
   * Checks entries as `connect()` does, and starts nothing: throws the same `INVALID_CONFIG` error naming the
   * bad entry. For a caller that must refuse bad entries before it creates what they would serve (an agent).
   */
  check(servers: Record<string, ServerEntry>, options: McpConnectOptions = {}): void {
    checkEntries(servers, { ...DEFAULT_RESTART, ...options })
  }

  /** The servers that run now, in connection order, each with its state. */
  servers(options: McpServersOptions = {}): McpServerInfo[] {
    const self = rawService(this)
    const infos: McpServerInfo[] = []
    for (const attachment of self.attachments) {
      if (options.agentId !== undefined && (options.agentId ?? undefined) !== attachment.agentId) continue
      const states = new Map(attachment.states().map((entry) => [entry.server, entry]))
      for (const spec of attachment.specs) {
        const { state, message } = states.get(spec.name)!
        infos.push({
          name: spec.name,
          ...attachment.agentId !== undefined && { agentId: attachment.agentId },
          spec: options.secrets ? spec : redacted(spec),
          state,
          ...message !== undefined && { message },
        })
      }
    }
    return infos
  }
}

/** A spec to show: every `env` and `headers` value, and any user or password in the URL, read `<redacted>`. */
export function redacted(spec: ServerSpec): ServerSpec {
  const hide = (map: Record<string, string> | undefined) => map && Object.fromEntries(Object.keys(map).map((key) => [key, REDACTED]))
  const { transport } = spec
  if (transport.kind === 'stdio') {
    const env = hide(transport.env)
    return { ...spec, transport: { ...transport, ...env && { env } } }
  }
  const url = new URL(transport.url)
  if (url.username) url.username = REDACTED
  if (url.password) url.password = REDACTED
  const headers = hide(transport.headers)
  return { ...spec, transport: { ...transport, url, ...headers && { headers } } }
}

export default McpService
