import { McpServerSet } from 'dsh-tools-mcp'

/** One MCP server's normalized spec, as `McpServerSet` runs it. */
type ServerSpec = ConstructorParameters<typeof McpServerSet>[0][number]

/** One `tools/list` answer of a server, in the order it came: each tool's model-facing declaration. */
export interface McpListing {
  server: string
  tools: { name: string; description: string; parameters: object }[]
  /** Set when the server did not answer (its start failed or timed out). */
  error?: string
}

/**
 * Asks one server for its tools through a fresh connection (a new process for a stdio server), the way
 * `dsh-tools-mcp` does at each start, and closes it again. The tools arrive in the server's own order.
 */
export async function listServer(spec: ServerSpec): Promise<McpListing> {
  const tools: McpListing['tools'] = []
  const problems: string[] = []
  const log = { info() {}, debug() {}, warn: (text: string) => problems.push(text), error: (text: string) => problems.push(text) }
  const set = new McpServerSet([spec], {
    register: (definition) => {
      tools.push({ name: definition.name, description: definition.description, parameters: definition.parameters })
      return () => {}
    },
  }, { log, restartDelayMs: 60_000, maxRestartDelayMs: 60_000 })
  try {
    await set.start()
  } finally {
    await set.close()
  }
  return { server: spec.name, tools, ...!tools.length && problems.length ? { error: problems.join('; ') } : {} }
}
