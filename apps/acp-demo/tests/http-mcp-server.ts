import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/** A Streamable HTTP MCP server on loopback (stateless: one SDK server per request) with one tool, `echo`. */
export async function startHttpMcpServer(): Promise<{ url: string; headersSeen: string[]; close(): Promise<void> }> {
  const headersSeen: string[] = []
  const http: HttpServer = createServer(async (req, res) => {
    headersSeen.push(String(req.headers['x-token'] ?? ''))
    const server = new Server({ name: 'http-test', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'echo', description: 'Echo a text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
    }))
    server.setRequestHandler(CallToolRequestSchema, async (request) => ({
      content: [{ type: 'text', text: `http echo: ${String(request.params.arguments?.text)}` }],
    }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => { void transport.close(); void server.close() })
    await server.connect(transport)
    await transport.handleRequest(req, res)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    headersSeen,
    close: () => new Promise((resolve) => { http.closeAllConnections(); http.close(() => resolve()) }),
  }
}
