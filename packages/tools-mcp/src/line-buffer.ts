import { TopLevelFields } from 'dsh-core'
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

/**
 * The longest message read from a stdio MCP server, in bytes of one line: the SDK's own limit (10 MiB),
 * which in the SDK closes the connection, dropping every tool of the server.
 */
export const MAX_SERVER_MESSAGE_BYTES = 10 * 1024 * 1024

const NEWLINE = 0x0a

/**
 * Stands in for the SDK's stdio read buffer: lines up to `limit` bytes are read as the SDK reads them; a
 * longer one is never held whole. It is scanned for its id as it streams, and a response is replaced by
 * a JSON-RPC error for that id naming the size and the limit, so the call fails and the connection stays.
 */
export class LineLimitedBuffer {
  private lines: (string | JSONRPCMessage)[] = []
  private held: Buffer[] = []
  private heldBytes = 0
  private scanner: TopLevelFields | undefined

  constructor(private readonly limit: number = MAX_SERVER_MESSAGE_BYTES) {}

  append(chunk: Buffer): void {
    let start = 0
    for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
      this.take(chunk.subarray(start, newline))
      this.endLine()
      start = newline + 1
    }
    if (start < chunk.length) this.take(chunk.subarray(start))
  }

  readMessage(): JSONRPCMessage | null {
    const next = this.lines.shift()
    if (next === undefined) return null
    return typeof next === 'string' ? deserializeMessage(next.replace(/\r$/, '')) : next
  }

  clear(): void {
    this.lines = []
    this.held = []
    this.heldBytes = 0
    this.scanner = undefined
  }

  private take(part: Buffer): void {
    if (this.scanner) {
      this.scanner.feed(part)
    } else if (this.heldBytes + part.length > this.limit) {
      this.scanner = new TopLevelFields(['id', 'method'])
      for (const piece of this.held) this.scanner.feed(piece)
      this.scanner.feed(part)
      this.held = []
    } else {
      this.held.push(part)
    }
    this.heldBytes += part.length
  }

  private endLine(): void {
    if (this.scanner) {
      const id = this.scanner.id()
      // a response (an id, no method) is answered for; a request or notification that large is dropped
      if (id !== undefined && this.scanner.string('method') === undefined) {
        this.lines.push({
          jsonrpc: '2.0',
          id,
          error: { code: -32000, message: `the server's answer is ${this.heldBytes} bytes, over the limit of ${this.limit} bytes per message; it was dropped` },
        })
      }
    } else if (this.heldBytes > 0) {
      this.lines.push(Buffer.concat(this.held).toString('utf8'))
    }
    this.held = []
    this.heldBytes = 0
    this.scanner = undefined
  }
}
