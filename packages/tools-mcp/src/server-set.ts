import type { Tool } from '@modelcontextprotocol/sdk/types.js'
import { kindFromHints, type ExecutableTool } from 'dsh-tools'
import { MAX_TIMER_MS, canonicalJson, quote } from 'dsh-core'
import type { ServerSpec } from './config.ts'
import { McpConnection, type McpLog, type ServerEvent } from './connection.ts'
import { ToolsMcpError, describeThrown } from './errors.ts'
import { legalize, modelToolName } from './names.ts'

/** Where a set puts its tools; `register` returns the disposer that takes the tool away again. */
export interface ToolSink {
  register(definition: ExecutableTool, ref: McpToolRef): () => unknown
  /**
   * Optional: one server's new tools at once, all or none (as `tools.registerMany()`); returns one disposer
   * per definition. A listing of hundreds of tools then costs one registration call, not one per tool.
   */
  registerMany?(definitions: ExecutableTool[], server: string): (() => unknown)[]
  /** Optional: a server failed to start, exited, or is back (once per outage); see `ServerStatus`. */
  status?(status: ServerStatus): void
}

/** A server's outage or its return, as the set's sink hears of it. */
export interface ServerStatus {
  server: string
  event: ServerEvent
  /** One line for a person: names the server and, for a failure, the line of its stderr that says why. */
  message: string
  /** The model-facing name prefix of the server's tools, `mcp__<server>__`. */
  prefix: string
}

/** Which server and which of its tools a model-facing name stands for. */
export interface McpToolRef {
  server: string
  tool: string
}

export interface ServerSetOptions {
  log: McpLog
  restartDelayMs: number
  maxRestartDelayMs: number
}

interface Wanted {
  definition: ExecutableTool
  ref: McpToolRef
  fingerprint: string
}

interface Registered {
  fingerprint: string
  dispose: () => void
}

// the runtime's own timeout only backs up the call's: the SDK's fires first and names the server
const RUNTIME_MARGIN_MS = 1000

/**
 * A set of MCP servers connected in parallel, whose tools live in one sink for as long as the set does.
 * The `dsh-tools-mcp` plugin holds one for the app; a front door can hold one per session.
 */
export class McpServerSet {
  private readonly connections: McpConnection[]
  private readonly registered = new Map<string, Map<string, Registered>>()
  private readonly refs = new Map<string, McpToolRef>()
  private closed = false

  constructor(specs: readonly ServerSpec[], private readonly sink: ToolSink, private readonly options: ServerSetOptions) {
    this.connections = specs.map((spec) => {
      this.registered.set(spec.name, new Map())
      const connection: McpConnection = new McpConnection(spec, {
        ...options,
        listed: (tools) => this.apply(connection, tools),
        down: () => this.apply(connection, []),
        status: (event, message) => {
          if (!this.closed) this.sink.status?.({ server: spec.name, event, message, prefix: `mcp__${legalize(spec.name)}__` })
        },
      })
      return connection
    })
  }

  /**
   * Starts every server at once. Resolves when each has listed its tools, failed its first start (an
   * error line), or passed its `startupTimeoutMs` (one warning line; its tools come later).
   */
  async start(): Promise<void> {
    for (const connection of this.connections) connection.start()
    await Promise.all(this.connections.map((connection) => this.awaitStartup(connection)))
  }

  /** Stops every server and removes every tool the set registered. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    await Promise.all(this.connections.map((connection) => connection.close()))
    for (const tools of this.registered.values()) {
      for (const entry of tools.values()) entry.dispose()
      tools.clear()
    }
    this.refs.clear()
  }

  /** Server names, and whether each is connected now. */
  status(): { server: string; connected: boolean }[] {
    return this.connections.map((connection) => ({ server: connection.spec.name, connected: connection.connected }))
  }

  private async awaitStartup(connection: McpConnection): Promise<void> {
    const { name, startupTimeoutMs } = connection.spec
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<void>((resolve) => { timer = setTimeout(resolve, startupTimeoutMs) })
    await Promise.race([connection.settled, late])
    clearTimeout(timer)
    if (!connection.isSettled && !this.closed) {
      this.options.log.warn(`MCP server ${quote(name)} has not listed its tools within startupTimeoutMs ${startupTimeoutMs}; starting without it, its tools will join when it answers`)
    }
  }

  /** Brings the registered tools of one server in line with its latest list. */
  private apply(connection: McpConnection, tools: readonly Tool[]): void {
    if (this.closed) return
    const server = connection.spec.name
    const current = this.registered.get(server)!
    const wanted = this.definitions(connection, tools)
    for (const [name, entry] of current) {
      if (wanted.get(name)?.fingerprint === entry.fingerprint) continue
      entry.dispose()
      current.delete(name)
      this.refs.delete(name)
    }
    const added: [string, Wanted][] = []
    for (const [name, want] of wanted) {
      if (current.has(name)) continue
      const taken = this.refs.get(name)
      if (taken) {
        this.options.log.error(new ToolsMcpError('NAME_COLLISION', `MCP tools ${quote(`${taken.server}/${taken.tool}`)} and ${quote(`${server}/${want.ref.tool}`)} both map to ${quote(name)}; the second is left out`).message)
        continue
      }
      added.push([name, want])
    }
    if (added.length && this.sink.registerMany) {
      try {
        const disposers = this.sink.registerMany(added.map(([, want]) => want.definition), server)
        added.forEach(([name, want], index) => this.track(current, name, want, disposers[index]!))
        return
      } catch {
        // One of them is refused: one by one, so the others still come and each refusal is named.
      }
    }
    for (const [name, want] of added) {
      try {
        this.track(current, name, want, this.sink.register(want.definition, want.ref))
      } catch (error) {
        this.options.log.error(`MCP server ${quote(server)}: tool ${quote(want.ref.tool)} cannot be registered: ${describeThrown(error)}`)
      }
    }
  }

  private track(current: Map<string, Registered>, name: string, want: Wanted, dispose: () => unknown): void {
    current.set(name, { fingerprint: want.fingerprint, dispose: once(dispose) })
    this.refs.set(name, want.ref)
  }

  private definitions(connection: McpConnection, tools: readonly Tool[]) {
    const server = connection.spec.name
    const byName = new Map<string, Tool[]>()
    for (const tool of tools) {
      const name = modelToolName(server, tool.name)
      byName.set(name, [...byName.get(name) ?? [], tool])
    }
    const wanted = new Map<string, Wanted>()
    for (const [name, group] of byName) {
      if (group.length > 1) {
        // both are left out, so which one the model gets never depends on list order
        const names = group.map((tool) => quote(tool.name)).join(' and ')
        this.options.log.error(new ToolsMcpError('NAME_COLLISION', `MCP server ${quote(server)}: tools ${names} both map to ${quote(name)}; neither is registered`).message)
        continue
      }
      const tool = group[0]!
      const { $schema: _, ...schema } = tool.inputSchema as Record<string, unknown>
      // in the server's key order: the system prompt's schemaKeyOrder owns the model-facing order
      const parameters = schema as object
      const description = tool.description ?? tool.title ?? ''
      const annotations = permissionHints(tool.annotations)
      const kind = kindFromHints({ ...annotations, ...tool.annotations?.openWorldHint === true && { openWorldHint: true } })
      const definition: ExecutableTool = {
        name,
        description,
        parameters,
        timeoutMs: Math.min(MAX_TIMER_MS, connection.spec.callTimeoutMs + RUNTIME_MARGIN_MS),
        execute: async (args: Record<string, unknown>, { signal }) => {
          const result = await connection.call(tool.name, args, signal)
          if (result.isError) throw new ToolsMcpError('TOOL_ERROR', result.text)
          return result.text
        },
        ...annotations && { annotations },
        ...kind && { kind },
      }
      const fingerprint = JSON.stringify(canonicalJson([description, parameters, annotations ?? null, kind ?? null]))
      wanted.set(name, { definition, ref: { server, tool: tool.name }, fingerprint })
    }
    return wanted
  }
}

/** The annotations a permission policy reads (`readOnlyHint`, `destructiveHint`), when the server gave booleans. */
function permissionHints(annotations: Tool['annotations']): ExecutableTool['annotations'] {
  if (!annotations) return undefined
  const hints: NonNullable<ExecutableTool['annotations']> = {}
  if (typeof annotations.readOnlyHint === 'boolean') hints.readOnlyHint = annotations.readOnlyHint
  if (typeof annotations.destructiveHint === 'boolean') hints.destructiveHint = annotations.destructiveHint
  return Object.keys(hints).length ? hints : undefined
}

function once(dispose: () => unknown): () => void {
  let done = false
  return () => {
    if (done) return
    done = true
    void Promise.resolve(dispose()).catch(() => {})
  }
}
