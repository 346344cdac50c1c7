// A small MCP server for the tests, built on the SDK's server API and run as a child process with `node`.
// Plain JavaScript so that it starts without a TypeScript loader. A test controls it through env vars:
//   MCP_TEST_PHASES     JSON list of tool lists; SIGUSR1 moves to the next list and sends tools/list_changed
//   MCP_TEST_DELAY_MS   wait this long before answering anything (a slow start)
//   MCP_TEST_PAGE_SIZE  tools per tools/list page (default: all on one page)
//   MCP_TEST_EVENTS     file that gets one JSON line per event: start (with pid), call, cancelled
//   MCP_TEST_FAIL       print this to stderr and exit 3 at once (a server that cannot start)
//   MCP_TEST_STORM_MS   once connected, send tools/list_changed every this many ms (a list_changed storm)
//   MCP_TEST_RELIST_DELAY_MS  hold every tools/list answer after the first this long (a listing in flight);
//                       each tools/list is then recorded as a `list` event
//   MCP_TEST_SHUFFLE_KEYS  any value: the object keys of every inputSchema in a new random order at each
//                       start, at every depth (arrays keep theirs), like a server iterating a hash map;
//                       a number is the seed (same seed, same order), otherwise each start draws one
// A tool in a list: { name, description?, inputSchema?, outputSchema?, annotations?, reply?: CallToolResult, replyBytes?, delayMs?, exit? }.
// `inputSchema: null` lists the tool without one (the protocol requires it: a broken server).
// `exit: true` makes a call kill the server (a crash); `delayMs` holds the answer (cancellable).
import { appendFileSync } from 'node:fs'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

const env = process.env
if (env.MCP_TEST_FAIL) {
  process.stderr.write(`${env.MCP_TEST_FAIL}\n`)
  process.exit(3)
}
const phases = JSON.parse(env.MCP_TEST_PHASES ?? '[[]]')
const pageSize = Number(env.MCP_TEST_PAGE_SIZE ?? 0)
let phase = 0
const record = (event) => {
  if (env.MCP_TEST_EVENTS) appendFileSync(env.MCP_TEST_EVENTS, `${JSON.stringify({ ...event, pid: process.pid })}\n`)
}
const tools = () => phases[Math.min(phase, phases.length - 1)]

const shuffleSeed = env.MCP_TEST_SHUFFLE_KEYS === undefined ? undefined
  : Number.isInteger(Number(env.MCP_TEST_SHUFFLE_KEYS)) && env.MCP_TEST_SHUFFLE_KEYS !== '' ? Number(env.MCP_TEST_SHUFFLE_KEYS) >>> 0
  : Math.floor(Math.random() * 2 ** 32)
/** mulberry32: a small seeded generator, so one seed always gives one order. */
function generator(seed) {
  let state = seed
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}
/** A copy of a JSON value with its object keys permuted at every depth. */
function shuffleKeys(value, random) {
  if (Array.isArray(value)) return value.map((item) => shuffleKeys(item, random))
  if (value === null || typeof value !== 'object') return value
  const entries = Object.entries(value)
  for (let index = entries.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1))
    ;[entries[index], entries[other]] = [entries[other], entries[index]]
  }
  const copy = {}
  for (const [key, member] of entries) Object.defineProperty(copy, key, { value: shuffleKeys(member, random), enumerable: true, writable: true, configurable: true })
  return copy
}
// one permutation per start: the seed restarts for each answer, so relists within a run agree
const schemaOf = (tool) => {
  const schema = tool.inputSchema === undefined ? { type: 'object', properties: {} } : tool.inputSchema
  return shuffleSeed === undefined ? schema : shuffleKeys(schema, generator(shuffleSeed))
}

const server = new Server({ name: 'dsh-test-server', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } })

let lists = 0
server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  // recorded only in the storm tests, so the other tests' event lists stay as they were
  if (env.MCP_TEST_RELIST_DELAY_MS) record({ event: 'list' })
  if (lists++ > 0 && env.MCP_TEST_RELIST_DELAY_MS) await new Promise((resolve) => setTimeout(resolve, Number(env.MCP_TEST_RELIST_DELAY_MS)))
  const all = tools().map((tool) => ({
    name: tool.name,
    ...tool.description === undefined ? {} : { description: tool.description },
    ...tool.inputSchema === null ? {} : { inputSchema: schemaOf(tool) },
    ...tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema },
    ...tool.annotations === undefined ? {} : { annotations: tool.annotations },
  }))
  if (!pageSize) return { tools: all }
  const start = Number(request.params?.cursor ?? 0)
  const next = start + pageSize
  return { tools: all.slice(start, next), ...next < all.length ? { nextCursor: String(next) } : {} }
})

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args } = request.params
  const tool = tools().find((candidate) => candidate.name === name)
  record({ event: 'call', name, arguments: args })
  if (!tool) return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true }
  if (tool.exit) process.exit(9)
  if (tool.delayMs) {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, tool.delayMs)
      extra.signal.addEventListener('abort', () => {
        clearTimeout(timer)
        record({ event: 'cancelled', name, reason: String(extra.signal.reason) })
        resolve()
      })
    })
  }
  if (tool.replyBytes) return { content: [{ type: 'text', text: 'x'.repeat(tool.replyBytes) }] }
  return tool.reply ?? { content: [{ type: 'text', text: `${name} called with ${JSON.stringify(args ?? {})}` }] }
})

process.on('SIGUSR1', () => {
  phase++
  void server.sendToolListChanged()
})

await new Promise((resolve) => setTimeout(resolve, Number(env.MCP_TEST_DELAY_MS ?? 0)))
await server.connect(new StdioServerTransport())
if (env.MCP_TEST_STORM_MS) setInterval(() => { void server.sendToolListChanged().catch(() => {}) }, Number(env.MCP_TEST_STORM_MS))
record({ event: 'start', ...shuffleSeed === undefined ? {} : { shuffleSeed } })
