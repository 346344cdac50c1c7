import Schema from 'schemastery'
import { MAX_TIMER_MS, quote, type ConfigInput } from 'dsh-core'
import { ToolsMcpError } from './errors.ts'
import { SERVER_PART, legalize } from './names.ts'

/** One server entry as the app file writes it: stdio (`command` …) or Streamable HTTP (`url` …). */
export interface ServerConfig {
  command?: string
  args: string[]
  env?: Record<string, string>
  cwd?: string
  url?: string
  headers?: Record<string, string>
  startupTimeoutMs: number
  callTimeoutMs: number
  disabled: boolean
}

export interface ToolsMcpConfig {
  servers: Record<string, ServerConfig>
  restartDelayMs: number
  maxRestartDelayMs: number
}

/** A checked server, ready to connect. */
export interface ServerSpec {
  /** The name the app file gave it. */
  name: string
  transport: { kind: 'stdio'; command: string; args: string[]; env?: Record<string, string>; cwd?: string }
    | { kind: 'http'; url: URL; headers?: Record<string, string> }
  startupTimeoutMs: number
  callTimeoutMs: number
}

export const DEFAULT_STARTUP_TIMEOUT_MS = 10_000
export const DEFAULT_CALL_TIMEOUT_MS = 60_000

const timeout = (fallback: number) => Schema.natural().min(1).max(MAX_TIMER_MS).default(fallback)
const STDIO_KEYS = ['command', 'args', 'env', 'cwd'] as const
const HTTP_KEYS = ['url', 'headers'] as const
const COMMON_KEYS = ['startupTimeoutMs', 'callTimeoutMs', 'disabled'] as const
const SERVER_KEYS: readonly string[] = [...STDIO_KEYS, ...HTTP_KEYS, ...COMMON_KEYS]

const ServerSchema = Schema.intersect([
  Schema.object({
    command: Schema.string().description('stdio: the program to run (e.g. `node`); it runs with your rights.'),
    args: Schema.array(Schema.string()).description('stdio: its arguments.'),
    env: Schema.dict(Schema.string()).description('stdio: extra environment variables (added to a safe default set: HOME, PATH, …).'),
    cwd: Schema.string().description('stdio: its working directory (default: the app\'s).'),
    url: Schema.string().description('Streamable HTTP: the endpoint, http:// or https://.'),
    headers: Schema.dict(Schema.string()).description('Streamable HTTP: headers sent with every request (e.g. Authorization).'),
    startupTimeoutMs: timeout(DEFAULT_STARTUP_TIMEOUT_MS)
      .description('How long the app waits at startup for this server\'s first tool list before it serves without it (ms).'),
    callTimeoutMs: timeout(DEFAULT_CALL_TIMEOUT_MS).description('How long one tools/call may take before it fails (ms).'),
    disabled: Schema.boolean().default(false).description('Keep the entry in the file, but do not start the server.'),
  }),
  // open, so that unknown keys reach checkConfig, which names them; schemastery would drop them silently
  Schema.dict(Schema.any()),
]) as unknown as Schema<ServerConfig>

export const Config: Schema<ConfigInput<ToolsMcpConfig>, ToolsMcpConfig> = Schema.object({
  servers: Schema.dict(ServerSchema).default({}).description('MCP servers by name; each one\'s tools appear as mcp__<name>__<tool>.'),
  restartDelayMs: Schema.natural().min(1).max(MAX_TIMER_MS).default(500)
    .description('First delay before a failed or exited server is started again (ms); doubled after each failure.'),
  maxRestartDelayMs: Schema.natural().min(1).max(MAX_TIMER_MS).default(30_000)
    .description('The longest delay between two attempts to start a server (ms).'),
})

const isGiven = (value: unknown) => value !== undefined && !(typeof value === 'object' && value !== null && Object.keys(value).length === 0)

/** What the schema cannot check: the kind of each server, its keys, its name, its URL. */
export function checkConfig(config: ToolsMcpConfig): ServerSpec[] {
  if (config.maxRestartDelayMs < config.restartDelayMs) {
    throw new ToolsMcpError('INVALID_CONFIG', `maxRestartDelayMs ${config.maxRestartDelayMs} is below restartDelayMs ${config.restartDelayMs}`)
  }
  const specs: ServerSpec[] = []
  const prefixes = new Map<string, string>()
  for (const [name, server] of Object.entries(config.servers)) {
    const fail = (text: string) => new ToolsMcpError('INVALID_CONFIG', `server ${quote(name)}: ${text}`, { details: { server: name } })
    const unknown = Object.keys(server).find((key) => !SERVER_KEYS.includes(key))
    if (unknown !== undefined) throw fail(`unknown key ${quote(unknown)}; valid keys: ${SERVER_KEYS.join(', ')}`)
    const part = legalize(name)
    if (!SERVER_PART.test(part)) {
      throw fail(`the name becomes ${quote(part)} in tool names; use letters, digits, "-" and single "_" inside (no "__", no "_" at either end)`)
    }
    const other = prefixes.get(part)
    if (other !== undefined) throw fail(`the name becomes ${quote(part)} in tool names, as server ${quote(other)} does; rename one`)
    prefixes.set(part, name)
    // schemastery fills omitted lists and maps with empty ones, so an empty one counts as not given
    const given = (keys: readonly string[]) => keys.filter((key) => isGiven((server as unknown as Record<string, unknown>)[key]))
    const stdio = given(STDIO_KEYS)
    const http = given(HTTP_KEYS)
    if (stdio.length && http.length) throw fail(`has both stdio keys (${stdio.join(', ')}) and HTTP keys (${http.join(', ')}); a server is one or the other`)
    if (server.disabled) continue
    const common = { name, startupTimeoutMs: server.startupTimeoutMs, callTimeoutMs: server.callTimeoutMs }
    if (server.url !== undefined) {
      let url: URL
      try {
        url = new URL(server.url)
      } catch {
        throw fail(`url ${quote(server.url)} is not a URL; expected http://… or https://…`)
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw fail(`url ${quote(server.url)} must use http: or https:, not ${url.protocol}`)
      specs.push({ ...common, transport: { kind: 'http', url, ...isGiven(server.headers) ? { headers: server.headers } : {} } })
      continue
    }
    if (server.command === undefined) throw fail('needs "command" (a stdio server) or "url" (a Streamable HTTP server)')
    if (server.command.trim() === '') throw fail('command is an empty string')
    specs.push({
      ...common,
      transport: {
        kind: 'stdio',
        command: server.command,
        args: server.args,
        ...isGiven(server.env) ? { env: server.env } : {},
        ...server.cwd !== undefined ? { cwd: server.cwd } : {},
      },
    })
  }
  return specs
}
