import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/** The examples folder: the app files, and the packages a user would install next to them. */
export const EXAMPLES = fileURLToPath(new URL('..', import.meta.url))

/** An installed bin, as `npx <name>` next to the app files would run it. */
export const bin = (name: string) => `${EXAMPLES}node_modules/.bin/${name}`

export interface Exit {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs an installed bin in the examples folder with `input` piped in; bounded by `timeoutMs`. */
export function runBin(name: string, args: string[], input = '', env: Record<string, string> = {}, timeoutMs = 30_000): Promise<Exit> {
  const child = spawn(bin(name), args, { cwd: EXAMPLES, env: { ...process.env, DSH_LOG_LEVEL: '', DSH_STARTUP_TIMEOUT_MS: '', ...env } })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  child.stdin.end(input)
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }) })
  })
}

/**
 * A stub of the remote MCP server `mcp.yml` names: Streamable HTTP on the address the file gives, one tool
 * (`echo`), recording the Authorization header of every request.
 */
export async function startRemoteStub(port: number): Promise<{ authorizations: string[]; close(): Promise<void> }> {
  const authorizations: string[] = []
  const http = createServer(async (req, res) => {
    authorizations.push(String(req.headers.authorization ?? ''))
    const server = new Server({ name: 'remote-stub', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'echo', description: 'Echo a text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
    }))
    server.setRequestHandler(CallToolRequestSchema, async (request) => ({ content: [{ type: 'text', text: `remote: ${String(request.params.arguments?.text)}` }] }))
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    res.on('close', () => { void transport.close(); void server.close() })
    await server.connect(transport)
    await transport.handleRequest(req, res)
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error) => reject(new Error(`the stub of mcp.yml's remote server needs 127.0.0.1:${port}: ${error.message}`)))
    http.listen(port, '127.0.0.1', resolve)
  })
  return { authorizations, close: () => new Promise((resolve) => { http.closeAllConnections(); http.close(() => resolve()) }) }
}
