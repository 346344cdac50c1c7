import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import type { ServerSpec } from './config.ts'
import { LineLimitedBuffer } from './line-buffer.ts'
import { STDERR_KEPT, meaningfulTail } from './stderr-tail.ts'

/** A fresh transport for one connection attempt, and the line of its server's stderr that says why it failed. */
export interface OpenedTransport {
  transport: Transport
  stderrTail(): string
}

/** Builds the SDK transport a spec names. A stdio server's stderr is kept (its tail explains a failure), not printed. */
export function openTransport(spec: ServerSpec): OpenedTransport {
  if (spec.transport.kind === 'http') {
    const { url, headers } = spec.transport
    return { transport: new StreamableHTTPClientTransport(url, headers ? { requestInit: { headers } } : undefined), stderrTail: () => '' }
  }
  const { command, args, env, cwd } = spec.transport
  const transport = new StdioClientTransport({ command, args, ...env ? { env } : {}, ...cwd !== undefined ? { cwd } : {}, stderr: 'pipe' })
  // the SDK's own buffer closes the connection on a message over 10 MiB; ours fails that one call instead
  const sdk = transport as unknown as { _readBuffer?: unknown }
  if (sdk._readBuffer !== undefined) sdk._readBuffer = new LineLimitedBuffer()
  let tail = ''
  transport.stderr?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-STDERR_KEPT)
  })
  return {
    transport,
    stderrTail: () => meaningfulTail(tail),
  }
}
