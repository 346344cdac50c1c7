import { fileURLToPath } from 'node:url'

/** Our MCP test server (`testing/test-server.mjs`), to run as `node <TEST_SERVER>`; the same path from src/ and dist/. */
const TEST_SERVER = fileURLToPath(new URL('../testing/test-server.mjs', import.meta.url))

/** A tool of the test server's list. */
interface TestTool {
  name: string
  description?: string
  /** Default `{ type: 'object', properties: {} }`; `null` lists the tool without an inputSchema (a broken server). */
  inputSchema?: object | null
  /** Listed as written, valid or not. */
  outputSchema?: unknown
  /** MCP tool annotations, listed as written (`{ readOnlyHint: true }`, `{ openWorldHint: true }`…). */
  annotations?: Record<string, unknown>
  /** The CallToolResult every call gets; default one text block naming the tool and its arguments. */
  reply?: object
  /** Answer with one text block of this many bytes ("x" repeated), for size limits. */
  replyBytes?: number
  /** Hold the answer this long (a cancellation ends the wait). */
  delayMs?: number
  /** A call kills the server (a crash). */
  exit?: boolean
}

interface TestServerOptions {
  /** The tool list; or `phases`, lists that SIGUSR1 steps through (each step sends tools/list_changed). */
  tools?: TestTool[]
  phases?: TestTool[][]
  /** Wait this long before answering anything. */
  delayMs?: number
  /** Tools per tools/list page. */
  pageSize?: number
  /** File that gets one JSON line per start, call and cancellation. */
  events?: string
  /** Print this on stderr and exit 3 at once. */
  fail?: string
  /** Once connected, send tools/list_changed every this many ms. */
  stormMs?: number
  /** Hold every tools/list answer after the first this long, so a re-listing is in flight. */
  relistDelayMs?: number
  /** Every inputSchema with its object keys permuted at every depth: `true` draws a new order at each start, a number is a fixed seed. */
  shuffleKeys?: boolean | number
}

/** A dsh-tools-mcp server entry (`command`, `args`, `env`) that runs the test server with this behaviour. */
export function testServer(options: TestServerOptions, extra: Record<string, unknown> = {}) {
  const env: Record<string, string> = { MCP_TEST_PHASES: JSON.stringify(options.phases ?? [options.tools ?? []]) }
  if (options.delayMs) env.MCP_TEST_DELAY_MS = String(options.delayMs)
  if (options.pageSize) env.MCP_TEST_PAGE_SIZE = String(options.pageSize)
  if (options.events) env.MCP_TEST_EVENTS = options.events
  if (options.fail) env.MCP_TEST_FAIL = options.fail
  if (options.stormMs) env.MCP_TEST_STORM_MS = String(options.stormMs)
  if (options.relistDelayMs) env.MCP_TEST_RELIST_DELAY_MS = String(options.relistDelayMs)
  if (options.shuffleKeys !== undefined && options.shuffleKeys !== false) env.MCP_TEST_SHUFFLE_KEYS = options.shuffleKeys === true ? 'random' : String(options.shuffleKeys)
  return { command: process.execPath, args: [TEST_SERVER], env, ...extra }
}

/** Whether process `pid` still runs (signal 0 tests for it without touching it). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
