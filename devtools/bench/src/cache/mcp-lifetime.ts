import { modelToolName } from 'dsh-tools'
import ToolsMcp from 'dsh-tools-mcp'
import { testServer } from 'dsh-tools-mcp/testing'
import type { Configuration } from './configurations.ts'
import { finish, startProcess, type Lifetime } from './lifetime.ts'
import type { BenchTool, ToolGroup } from './tools.ts'

/** One tool of the MCP test server (`testServer`'s `tools`). */
type TestTool = NonNullable<Parameters<typeof testServer>[0]['tools']>[number]

/** A benchmark tool as the MCP test server lists and answers it. */
function serverTool(tool: BenchTool): TestTool {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
    reply: { content: [{ type: 'text', text: tool.result ?? `${tool.name} ok` }] },
  }
}

/** The model-facing name of a benchmark tool when its group is served by an MCP server of the same name. */
export function mcpName(groups: readonly ToolGroup[], tool: string): string {
  const group = groups.find((candidate) => candidate.tools.some((item) => item.name === tool))
  return group ? modelToolName(group.id, tool) : tool
}

/**
 * Boots one process whose tools come from real MCP servers: one `testing/test-server.mjs` child per group,
 * all started at once by `dsh-tools-mcp`, each after its own real `delays[i]` ms, so they answer (and
 * register) in an order that differs from boot to boot. With `shuffleSeeds`, each server lists its schemas
 * with object keys permuted by its seed. The plugin's startup waits for every first list.
 */
export async function bootMcp(
  configuration: Configuration, origin: string, root: string, groups: ToolGroup[], delays: number[], shuffleSeeds?: number[],
): Promise<Lifetime> {
  const { ctx, load, fibers } = await startProcess(configuration, origin, root)
  const registered: string[] = []
  const stopRecording = ctx.on('tools/change', ({ action, name }) => { if (action === 'register') registered.push(name) })
  const servers: Record<string, unknown> = {}
  groups.forEach((group, index) => {
    // a generous startup timeout: this measures order, not how long a busy machine takes to start a process
    const shuffleKeys = shuffleSeeds?.[index]
    servers[group.id] = testServer({ tools: group.tools.map(serverTool), delayMs: delays[index], ...shuffleKeys !== undefined && { shuffleKeys } }, { startupTimeoutMs: 120_000 })
  })
  await load(ToolsMcp, { servers })
  stopRecording()
  return finish(ctx, fibers, registered, load, async () => {
    throw new Error('the MCP scenario has every server from the start; additions are measured by the static configurations')
  })
}
