import type { Context, Logger } from 'cordis'
import { isGone, messageOf } from 'dsh-core'
import type ToolRuntime from 'dsh-tools'
import type { ServerSpec } from './config.ts'
import { McpServerSet, type ServerStatus } from './server-set.ts'
import { registerListing, registerOne } from './registration.ts'
import { sourceName, toSourceStatus } from './source-status.ts'

/** Where a server stands: listing its first tools, serving them, or down (failed to start, or exited). */
export type McpServerState = 'starting' | 'connected' | 'failed' | 'exited'

/** What `ctx.mcp.connect()` returns: the connection's servers, their first listing, and how to close them. */
export interface McpAttachment {
  /** The names of the servers it runs (disabled entries are not run). */
  readonly servers: readonly string[]
  /** Resolves (never rejects) once each server has listed its tools, failed its first start, or passed its `startupTimeoutMs`. */
  readonly started: Promise<void>
  /** Stops its servers, removes their tools and forgets their outages; idempotent. */
  dispose(): Promise<void>
}

export interface AttachmentParts {
  /** The connecting plugin's context: it owns the tools, and its disposal closes the connection. */
  caller: Context
  /** The raw tool runtime, for source statuses (which belong to no plugin). */
  tools: ToolRuntime
  logger: Logger
  agentId: string | undefined
  specs: readonly ServerSpec[]
  restartDelayMs: number
  maxRestartDelayMs: number
  /** Called once, when the attachment is disposed. */
  closed(attachment: Attachment): void
}

const none = () => {}

/** One `connect()`: a server set whose tools live in the caller's context, for every agent or one. */
export class Attachment implements McpAttachment {
  readonly servers: readonly string[]
  readonly started: Promise<void>
  readonly agentId: string | undefined
  readonly specs: readonly ServerSpec[]
  private readonly set: McpServerSet
  private readonly down = new Map<string, { state: 'failed' | 'exited'; message: string }>()
  private readonly endEffect: () => unknown
  private disposing: Promise<void> | undefined

  constructor(private readonly parts: AttachmentParts) {
    const { caller, tools, logger, agentId, specs } = parts
    this.agentId = agentId
    this.specs = specs
    this.servers = specs.map((spec) => spec.name)
    const scope = agentId === undefined ? {} : { agentId }
    const prefix = agentId === undefined ? '' : `session ${agentId}: `
    // Cordis lets a disposed plugin's apply() run to its end: a server that lists its tools after its
    // connection (or the app) began to stop must not try to register them, once per tool
    const stopping = () => this.disposing !== undefined || isGone(caller)
    this.set = new McpServerSet(specs, {
      register: (definition, ref) => stopping() ? none : registerOne(caller, definition, ref.server, scope),
      registerMany: (definitions, server) => stopping() ? definitions.map(() => none) : registerListing(caller, definitions, server, scope),
      // front doors show these to the person using the app (`tools/source`); a call to a down server's tool names it
      status: (status) => {
        if (stopping()) return
        this.record(status)
        tools.reportSource(toSourceStatus(status, agentId))
      },
    }, {
      log: {
        info: (text) => logger.info(prefix + text),
        warn: (text) => logger.warn(prefix + text),
        error: (text) => logger.error(prefix + text),
        debug: (text) => logger.debug(prefix + text),
      },
      restartDelayMs: parts.restartDelayMs,
      maxRestartDelayMs: parts.maxRestartDelayMs,
    })
    // the caller's disposal (a plugin unloaded, the app closing) closes the connection
    this.endEffect = caller.effect(() => () => this.disposing ? undefined : this.dispose(), `mcp.connect(${JSON.stringify(this.servers)}${agentId === undefined ? '' : ` for agent ${JSON.stringify(agentId)}`})`)
    this.started = this.set.start().catch((error) => logger.error(`${prefix}MCP servers failed to start: ${messageOf(error)}`))
  }

  /** Each server's state now. */
  states(): { server: string; state: McpServerState; message?: string }[] {
    return this.set.status().map(({ server, connected }) => {
      if (connected) return { server, state: 'connected' as const }
      const down = this.down.get(server)
      return down ? { server, ...down } : { server, state: 'starting' as const }
    })
  }

  dispose(): Promise<void> {
    this.disposing ??= this.close()
    return this.disposing
  }

  private async close(): Promise<void> {
    const { tools, agentId } = this.parts
    this.parts.closed(this)
    await this.set.close()
    for (const server of this.servers) tools.forgetSource(sourceName(server), agentId === undefined ? {} : { agentId })
    // ends the caller's effect when disposed directly (a no-op when that effect is what disposes it);
    // its disposer sees `disposing` set and does not wait for this very close
    await this.endEffect()
  }

  private record(status: ServerStatus): void {
    if (status.event === 'reconnected') this.down.delete(status.server)
    else this.down.set(status.server, { state: status.event, message: status.message })
  }
}
