import { canonicalJson, listNames, quote } from 'dsh-core'
import type { McpListing } from './mcp-listing.ts'
import type { LintFinding } from './types.ts'

const ADVICE = 'DSH sorts tools by name, so the order alone does not reach the model; other descriptions or schemas do, and move the whole prefix. Fix the server, or pin its tools (a static copy).'

/** What differs between two `tools/list` answers of one server: the order, descriptions, schemas, the set. */
export function compareListings(first: McpListing, second: McpListing): LintFinding[] {
  if (first.error || second.error) return []
  const findings: LintFinding[] = []
  const server = first.server
  const source = { kind: 'server' as const, name: server }
  const names = (listing: McpListing) => listing.tools.map((tool) => tool.name)
  const inSecond = new Map(second.tools.map((tool) => [tool.name, tool]))
  const shared = names(first).filter((name) => inSecond.has(name))
  const sharedSecond = names(second).filter((name) => shared.includes(name))
  if (shared.some((name, index) => sharedSecond[index] !== name)) {
    findings.push({
      rule: 'mcp-listing-unstable', source,
      message: `MCP server ${JSON.stringify(server)} lists its tools in another order each time: ${listNames(names(first))}, then ${listNames(names(second))}`,
      advice: ADVICE, detail: { aspect: 'order', orders: [names(first), names(second)] },
    })
  }
  for (const tool of first.tools) {
    const other = inSecond.get(tool.name)
    if (!other) continue
    if (tool.description !== other.description) {
      findings.push({
        rule: 'mcp-listing-unstable', source,
        message: `MCP server ${JSON.stringify(server)} describes tool ${JSON.stringify(tool.name)} differently each time: ${quote(tool.description)}, then ${quote(other.description)}`,
        advice: ADVICE, detail: { aspect: 'description', tool: tool.name, values: [tool.description, other.description] },
      })
    }
    // key order alone is canonicalized by the system prompt; a different schema is not
    if (JSON.stringify(canonicalJson(tool.parameters)) !== JSON.stringify(canonicalJson(other.parameters))) {
      findings.push({
        rule: 'mcp-listing-unstable', source,
        message: `MCP server ${JSON.stringify(server)} gives tool ${JSON.stringify(tool.name)} another input schema each time`,
        advice: ADVICE, detail: { aspect: 'schema', tool: tool.name, values: [tool.parameters, other.parameters] },
      })
    }
  }
  const onlyOnce = [...names(first).filter((name) => !inSecond.has(name)), ...names(second).filter((name) => !first.tools.some((tool) => tool.name === name))]
  if (onlyOnce.length) {
    findings.push({
      rule: 'mcp-listing-unstable', source,
      message: `MCP server ${JSON.stringify(server)} lists other tools each time: ${listNames(onlyOnce)} in only one listing`,
      advice: ADVICE, detail: { aspect: 'set', tools: onlyOnce },
    })
  }
  return findings
}
