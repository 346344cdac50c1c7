import type { ViewBreak, ViewHeader, ViewMarker, ViewRequest } from './model.ts'

/** What changed between two requests, as far as the log tells. */
export interface BreakFacts {
  request: ViewRequest
  /** The header in force differs from the request before's (or the log says so where it keeps a placeholder). */
  changed: boolean
  previous: ViewHeader | null
  current: ViewHeader
  /** The tool-list markers logged just before this request. */
  markers: readonly ViewMarker[]
  detector: ViewBreak['detector']
  diffSummary: string | null
}

const MCP_TOOL = /^mcp__(.+?)__./

/** The MCP servers the names belong to, when every one is an MCP tool (`mcp__<server>__<tool>`); else null. */
function mcpServers(names: readonly string[]): string[] | null {
  if (!names.length) return null
  const servers = new Set<string>()
  for (const name of names) {
    const match = MCP_TOOL.exec(name)
    if (!match) return null
    servers.add(match[1]!)
  }
  return [...servers]
}

const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`

/** Tools the header gained and lost against the one before: from the two tool lists, else from the logged markers. */
function toolDelta({ previous, current, markers }: BreakFacts): { added: string[]; removed: string[] } {
  if (previous?.tools && current.tools) {
    const before = new Set(previous.tools.map((tool) => tool.name))
    const after = new Set(current.tools.map((tool) => tool.name))
    return { added: [...after].filter((name) => !before.has(name)), removed: [...before].filter((name) => !after.has(name)) }
  }
  const tools = markers.filter((marker) => marker.kind === 'tools')
  return { added: tools.flatMap((marker) => marker.added), removed: tools.flatMap((marker) => marker.removed) }
}

/** "a, b and 3 more": names for a sentence, at most five. */
function listed(names: readonly string[]): string {
  return names.length <= 5 ? names.join(', ') : `${names.slice(0, 5).join(', ')} and ${names.length - 5} more`
}

/** What the tool change was, in words: MCP servers joining or leaving by name, other tools by name. */
function toolsSentence(added: readonly string[], removed: readonly string[], resumed: boolean): string | null {
  const parts: string[] = []
  const gone = mcpServers(removed)
  const joined = mcpServers(added)
  if (gone) parts.push(`${resumed ? 'resumed without the MCP servers the session had' : 'MCP servers left'} (${gone.join(', ')}): ${count(removed.length, 'tool')} removed`)
  else if (removed.length) parts.push(`${count(removed.length, 'tool')} removed (${listed(removed)})`)
  if (joined) parts.push(`${resumed ? 'resumed with MCP servers the session did not have' : 'MCP servers joined'} (${joined.join(', ')}): ${count(added.length, 'tool')} added`)
  else if (added.length) parts.push(`${count(added.length, 'tool')} added (${listed(added)})`)
  return parts.length ? parts.join('; ') : null
}

/**
 * The label of a break (the detector's reason, else the kind of header change) and one sentence on what
 * caused it: a resume without the MCP servers the session had, tools joining or leaving, a model switch,
 * a changed system prompt, or — with the same prefix bytes — what the detector judged.
 */
export function explainBreak(facts: BreakFacts): { label: string; explanation: string } {
  const { request, changed, previous, current, detector } = facts
  const resumed = request.headerReason === 'resume'
  const kind = !changed ? 'no header change' : resumed ? 'header change at resume' : request.headerReason === 'model' ? 'model switch' : 'header change'
  const label = detector?.reason || kind
  if (!changed || previous === null) {
    const why = detector ? `the cache read fell (${detector.previousCacheReadTokens.toLocaleString('en-US')} → ${detector.currentCacheReadTokens.toLocaleString('en-US')} tokens) with the same prefix bytes; the detector says ${detector.reason.replace(/_/g, ' ')}` : 'no change the log shows'
    return { label, explanation: `${resumed ? 'resumed with the same header: ' : ''}${why}` }
  }
  const parts: string[] = []
  if (previous.model !== current.model) parts.push(`model switched from ${previous.model} to ${current.model}`)
  const { added, removed } = toolDelta(facts)
  const tools = toolsSentence(added, removed, resumed)
  if (tools) parts.push(tools)
  if (previous.system !== current.system) parts.push('the system prompt changed')
  if (!parts.length && current.tools === null) parts.push(`the log says the header changed (reason ${request.headerReason}) but stores a placeholder for its tools`)
  if (!parts.length && facts.diffSummary) parts.push(facts.diffSummary)
  if (!parts.length) parts.push('the tool definitions changed')
  const sentence = parts.join('; ')
  // a resume whose tool loss is already told as one ("resumed without …") needs no second "resumed"
  return { label, explanation: resumed && !sentence.startsWith('resumed') ? `resumed with a different setup: ${sentence}` : sentence }
}
