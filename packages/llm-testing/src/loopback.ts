import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One request exactly as the server received it. */
export interface RecordedRequest {
  method: string
  url: string
  headers: IncomingHttpHeaders
  /** The raw body bytes, decoded as UTF-8. */
  body: string
}

/** Answers one request; it may also inspect the request as recorded. */
export type LoopbackHandler = (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void | Promise<void>

/** A real HTTP server on 127.0.0.1 (port 0) that records every request and answers with `handler`. */
export async function startLoopback(handler: LoopbackHandler) {
  const requests: RecordedRequest[] = []
  let current = handler
  const server = http.createServer(async (req, res) => {
    const parts: Buffer[] = []
    for await (const part of req) parts.push(part as Buffer)
    const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts).toString('utf8') }
    requests.push(recorded)
    try {
      await current(req, res, recorded)
    } catch (error) {
      res.destroy(error as Error)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    /** The parsed JSON bodies of all requests so far. */
    bodies: () => requests.map((request) => JSON.parse(request.body)),
    handle(next: LoopbackHandler) {
      current = next
    },
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** A running loopback server. */
export type Loopback = Awaited<ReturnType<typeof startLoopback>>
