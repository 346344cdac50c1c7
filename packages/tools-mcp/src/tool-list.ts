import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { PaginatedResultSchema, ToolSchema, type Tool } from '@modelcontextprotocol/sdk/types.js'
import { describeValue } from 'dsh-core'
import { describeThrown } from './errors.ts'

/** Guards against a server whose cursors never end. */
const MAX_PAGES = 1000

/** A listed tool that is left out, and why, in words for a log line. */
export interface RefusedTool {
  tool: string
  why: string
}

/**
 * Every page of `tools/list`, each tool checked on its own: a tool the protocol's schema refuses (no
 * `inputSchema`, a root type other than `object`, …) is left out and reported, and the others stay. The SDK's
 * `listTools()` checks the whole answer at once, so one bad tool would throw away the server's good ones.
 */
export async function listTools(client: Client, refused: (tool: RefusedTool) => void): Promise<Tool[]> {
  const tools: Tool[] = []
  let cursor: string | undefined
  let seen = 0
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = await client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, PaginatedResultSchema)
    const listed = (answer as { tools?: unknown }).tools
    if (!Array.isArray(listed)) throw new Error(`tools/list answered without a tools array (got ${describeValue(listed)})`)
    for (const raw of listed) {
      const parsed = ToolSchema.safeParse(raw)
      if (parsed.success) tools.push(parsed.data as Tool)
      else refused({ tool: nameOf(raw, seen), why: whyRefused(raw, parsed.error.issues) })
      seen++
    }
    cursor = answer.nextCursor
    if (cursor === undefined) return keepCheckable(client, tools, refused)
  }
  throw new Error(`tools/list still had a next page after ${MAX_PAGES} pages`)
}

function nameOf(raw: unknown, index: number): string {
  const name = (raw as { name?: unknown } | null)?.name
  return typeof name === 'string' ? name : `#${index + 1} (name ${describeValue(name)})`
}

function whyRefused(raw: unknown, issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  const schema = (raw as { inputSchema?: unknown } | null)?.inputSchema
  if (raw !== null && typeof raw === 'object' && schema === undefined) return 'it has no inputSchema'
  const type = (schema as { type?: unknown } | null)?.type
  if (schema !== null && typeof schema === 'object' && !Array.isArray(schema) && type !== 'object') {
    return `its inputSchema has type ${describeValue(type)}, not "object"`
  }
  return issues.slice(0, 3).map((issue) => `${issue.path.map(String).join('.') || 'the tool'}: ${issue.message}`).join('; ')
}

/**
 * The SDK checks `structuredContent` against each tool's `outputSchema` with validators it builds in
 * `listTools()`, which this listing replaces, so they are built here through the same private method. An
 * `outputSchema` that cannot be compiled leaves out its tool instead of the whole list.
 */
function keepCheckable(client: Client, tools: Tool[], refused: (tool: RefusedTool) => void): Tool[] {
  const cache = (client as unknown as { cacheToolMetadata?: (tools: Tool[]) => void }).cacheToolMetadata
  if (typeof cache !== 'function') throw new Error('the MCP SDK client has no cacheToolMetadata(); output schemas could not be checked')
  const kept = tools.filter((tool) => {
    if (!tool.outputSchema) return true
    try {
      cache.call(client, [tool])
      return true
    } catch (error) {
      refused({ tool: tool.name, why: `its outputSchema cannot be compiled: ${describeThrown(error)}` })
      return false
    }
  })
  cache.call(client, kept)
  return kept
}
