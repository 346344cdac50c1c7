import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js'
import type { ServerSpec } from './config.ts'
import { quote } from 'dsh-core'
import { convertResult, type ConvertedResult } from './content.ts'
import { ToolsMcpError, describeThrown } from './errors.ts'
import { listTools, type RefusedTool } from './tool-list.ts'
import { openTransport } from './transport.ts'

/** Where the connection code writes its lines; a cordis `Logger` fits. */
export interface McpLog {
  info(text: string): void
  warn(text: string): void
  error(text: string): void
  debug(text: string): void
}

export interface ConnectionOptions {
  log: McpLog
  restartDelayMs: number
  maxRestartDelayMs: number
  /** Every complete tool list the server gives: the first after each connect, and each after `list_changed`. */
  listed(tools: Tool[]): void
  /** The connection is gone; the tools of the last list no longer exist. */
  down(): void
  /**
   * Once per outage, for the person using the app: the server failed to start, its connection went away, or
   * it is back after either. `message` is one line naming the server and, for a failure, the line of its
   * stderr that says why.
   */
  status?(event: ServerEvent, message: string): void
}

/** What `ConnectionOptions.status` reports. A first start that works is not reported. */
export type ServerEvent = 'failed' | 'exited' | 'reconnected'

const CLIENT_INFO = { name: 'dsh-tools-mcp', version: '0.1.0' }

/**
 * One MCP server for as long as it is wanted: connects, lists its tools (all pages), re-lists on
 * `notifications/tools/list_changed`, and after a failed start, an exit or a dropped connection starts it
 * again with a delay that doubles up to a bound.
 */
export class McpConnection {
  private client: Client | undefined
  /** The client of the attempt in progress, connected or not, so that close() can end a hanging start. */
  private attempt: Client | undefined
  private closed = false
  private loop: Promise<void> | undefined
  private wake: (() => void) | undefined
  private listing: Promise<void> | undefined
  private listAgain = false
  /** Tools already reported as left out (name and reason), so that a relist or a restart does not repeat the line. */
  private readonly reported = new Set<string>()
  /** Clients whose connection has closed (the SDK calls `onclose` before it fails their pending requests). */
  private readonly ended = new WeakSet<Client>()
  private markSettled!: () => void
  private settledFlag = false
  /** Resolves once the first attempt ended: tools listed and handed over, or the start failed. */
  readonly settled = new Promise<void>((resolve) => { this.markSettled = resolve })

  constructor(readonly spec: ServerSpec, private readonly options: ConnectionOptions) {}

  get isSettled(): boolean {
    return this.settledFlag
  }

  get connected(): boolean {
    return this.client !== undefined
  }

  start(): void {
    this.loop ??= this.run()
  }

  /** Stops the server (or the attempt to start it) and any pending restart; resolves when it is down. */
  async close(): Promise<void> {
    this.closed = true
    this.wake?.()
    await this.attempt?.close().catch(() => {})
    await this.loop
    // a startup still waiting for this server stops waiting
    this.settle()
  }

  /** Calls a tool by the server's own name. Throws a `ToolsMcpError` naming the server and the tool. */
  async call(tool: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ConvertedResult> {
    const { name, callTimeoutMs } = this.spec
    const client = this.client
    const where = `MCP server ${quote(name)}`
    if (!client) throw new ToolsMcpError('NOT_CONNECTED', `${where} is not connected, so tool ${quote(tool)} cannot run now`)
    try {
      const result = await client.callTool({ name: tool, arguments: args }, undefined, { signal, timeout: callTimeoutMs })
      return convertResult(result as CallToolResult)
    } catch (error) {
      if (signal.aborted) throw error
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new ToolsMcpError('CALL_TIMEOUT', `${where} did not answer tool ${quote(tool)} within ${callTimeoutMs} ms`)
      }
      throw new ToolsMcpError('CALL_FAILED', `${where} failed on tool ${quote(tool)}: ${describeThrown(error)}`)
    }
  }

  private readonly refused = ({ tool, why }: RefusedTool) => {
    const key = JSON.stringify([tool, why])
    if (this.reported.has(key)) return
    this.reported.add(key)
    this.options.log.warn(`MCP server ${quote(this.spec.name)}: tool ${quote(tool)} is left out: ${why}; its other tools are registered`)
  }

  private settle() {
    this.settledFlag = true
    this.markSettled()
  }

  private async run(): Promise<void> {
    const { log, restartDelayMs, maxRestartDelayMs } = this.options
    const where = `MCP server ${quote(this.spec.name)}`
    let delay = restartDelayMs
    let failures = 0
    // set while the server is down after having been wanted: one status per outage, one when it is back
    let outage = false
    while (!this.closed) {
      const opened = openTransport(this.spec)
      const client = new Client(CLIENT_INFO, { capabilities: {} })
      this.attempt = client
      let lost!: () => void
      const gone = new Promise<void>((resolve) => { lost = resolve })
      client.onclose = () => {
        this.ended.add(client)
        lost()
      }
      let changedEarly = false
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        if (this.closed) return
        if (this.client === client) this.relist(client)
        else changedEarly = true
      })
      try {
        await client.connect(opened.transport)
        const tools = await listTools(client, this.refused)
        if (this.closed) {
          await client.close()
          break
        }
        this.client = client
        failures = 0
        delay = restartDelayMs
        log.debug(`${where} is up with ${tools.length} tools`)
        this.options.listed(tools)
        if (outage) this.options.status?.('reconnected', `${where} is back with ${tools.length} ${tools.length === 1 ? 'tool' : 'tools'}`)
        outage = false
        this.settle()
        if (changedEarly) this.relist(client)
        await gone
        this.client = undefined
        if (this.closed) break
        const tail = opened.stderrTail()
        log.warn(`${where} disconnected${tail ? ` (stderr: ${tail})` : ''}; its tools are removed; restarting in ${delay} ms`)
        this.options.down()
        outage = true
        this.options.status?.('exited', `${where} exited${tail ? `: ${tail}` : ''}; its tools are gone until it restarts`)
      } catch (error) {
        this.client = undefined
        await client.close().catch(() => {})
        if (this.closed) break
        failures++
        const tail = opened.stderrTail()
        const why = `${describeThrown(error)}${tail ? ` (stderr: ${tail})` : ''}`
        // one error line per outage; further failed attempts of the same outage only at debug level
        const line = `${where} failed to start: ${why}; retrying in ${delay} ms, backing off up to ${maxRestartDelayMs} ms`
        if (failures === 1) log.error(line)
        else log.debug(line)
        if (!outage) this.options.status?.('failed', `${where} failed to start: ${tail || describeThrown(error)}; retrying`)
        outage = true
        this.settle()
      }
      await this.pause(delay)
      delay = Math.min(delay * 2, maxRestartDelayMs)
    }
  }

  private pause(ms: number): Promise<void> {
    if (this.closed) return Promise.resolve()
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        resolve()
      }
      this.wake = done
    })
  }

  /** True while `client` is the live connection of a wanted server; a listing that fails otherwise was cut short on purpose. */
  private serving(client: Client): boolean {
    return this.client === client && !this.closed && !this.ended.has(client)
  }

  // one listing at a time; a notification during a listing asks for one more afterwards
  private relist(client: Client): void {
    if (this.listing) {
      this.listAgain = true
      return
    }
    this.listing = (async () => {
      do {
        this.listAgain = false
        try {
          const tools = await listTools(client, this.refused)
          if (this.serving(client)) this.options.listed(tools)
        } catch (error) {
          // a shutdown (or the connection's end, reported on its own) fails the listing in flight: not worth a line
          if (this.serving(client)) this.options.log.warn(`MCP server ${quote(this.spec.name)}: listing tools after tools/list_changed failed: ${describeThrown(error)}`)
        }
      } while (this.listAgain && this.serving(client))
    })().finally(() => { this.listing = undefined })
  }
}
