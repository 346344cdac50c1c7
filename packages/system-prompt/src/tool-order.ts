import { compareCodeUnits, listNames, quote, type ToolSchema } from 'dsh-core'
import { SystemPromptError } from './errors.ts'
import { TOOL_ORDER_GROUP, ToolPatterns, toolPatternProblem } from './tool-patterns.ts'
import { indexOfName, lowerBound } from './sorted-search.ts'

export { TOOL_ORDER_GROUP }

/** The rest entry of a `toolOrder` list: where every tool the list does not name goes. */
export const TOOL_ORDER_REST = '<unlisted-tools>'

/** Whether a `toolOrder` entry is a prefix group (ends in `*`). */
export const isToolGroup = (entry: string) => entry !== TOOL_ORDER_REST && entry.endsWith(TOOL_ORDER_GROUP)

/** Why a tool stands where it does under a `toolOrder`: its own entry, a group entry, or the rest entry. */
export interface ToolPlacement {
  kind: 'listed' | 'group' | 'rest'
  /** The `toolOrder` entry that placed it. */
  entry: string
  /** 0-based index of that entry in the list. */
  index: number
}

const byName = (a: ToolSchema, b: ToolSchema) => compareCodeUnits(a.name, b.name)

/** Checks the shape of a configured `toolOrder`; throws on the first problem. */
export function validateToolOrder(list: unknown): asserts list is readonly string[] {
  if (!Array.isArray(list)) {
    throw new SystemPromptError('INVALID_TOOL_ORDER', `toolOrder must be a list of tool names, got ${quote(list)}`)
  }
  if (list.length === 0) {
    throw new SystemPromptError(
      'INVALID_TOOL_ORDER',
      `toolOrder is an empty list; omit the key for lexicographic order, or list names around ${quote(TOOL_ORDER_REST)}`,
    )
  }
  const seen = new Set<string>()
  list.forEach((entry, index) => {
    const problem = toolPatternProblem(entry)
    if (problem === 'empty') {
      throw new SystemPromptError('INVALID_TOOL_ORDER', `toolOrder[${index}] must be a non-empty tool name, got ${quote(entry)}`)
    }
    if (problem === 'star-inside') {
      throw new SystemPromptError(
        'INVALID_TOOL_ORDER',
        `toolOrder[${index}] is ${quote(entry)}: "*" may only end an entry, as in "mcp__github__*" (a prefix group); valid entries are tool names, prefix groups and ${quote(TOOL_ORDER_REST)}`,
      )
    }
    if (problem === 'bare-star') {
      throw new SystemPromptError(
        'INVALID_TOOL_ORDER',
        `toolOrder[${index}] is a bare "*"; a group needs a prefix before the "*" (e.g. "mcp__github__*"), and ${quote(TOOL_ORDER_REST)} already places every other tool`,
      )
    }
    if (seen.has(entry)) {
      const what = entry === TOOL_ORDER_REST ? 'the rest entry' : isToolGroup(entry) ? 'group' : 'tool'
      throw new SystemPromptError('INVALID_TOOL_ORDER', `toolOrder lists ${what} ${quote(entry)} twice`)
    }
    seen.add(entry)
  })
  if (!seen.has(TOOL_ORDER_REST)) {
    throw new SystemPromptError(
      'INVALID_TOOL_ORDER',
      `toolOrder must contain the rest entry ${quote(TOOL_ORDER_REST)} exactly once (where unlisted tools go); got ${listNames(list.map(quote))}`,
    )
  }
}

/**
 * A validated `toolOrder`, indexed once. Placing N sorted tools (`arrange`) costs a binary search per entry
 * and a counting sort, never a scan of the groups per tool; one name's placement (`placementOf`, the reason
 * the inspector shows) asks `ToolPatterns`, the matcher `permissions` uses too.
 */
export class ToolOrderPolicy {
  readonly names: readonly string[]
  private readonly patterns: ToolPatterns
  private readonly restIndex: number
  /** Group prefixes with their entry index, shortest first; `after` is the least string above every name with the prefix. */
  private readonly groupRuns: { prefix: string; after: string | undefined; index: number }[] = []
  /** Listed tool names with their entry index. */
  private readonly listed: { name: string; index: number }[] = []

  constructor(list: readonly string[]) {
    validateToolOrder(list)
    this.names = Object.freeze([...list])
    this.patterns = new ToolPatterns(this.names, isToolGroup)
    this.restIndex = this.names.indexOf(TOOL_ORDER_REST)
    this.names.forEach((entry, index) => {
      if (isToolGroup(entry)) {
        const prefix = entry.slice(0, -TOOL_ORDER_GROUP.length)
        this.groupRuns.push({ prefix, after: successor(prefix), index })
      }
      else if (entry !== TOOL_ORDER_REST) this.listed.push({ name: entry, index })
    })
    this.groupRuns.sort((a, b) => a.prefix.length - b.prefix.length)
  }

  /** Where `name` goes: its own entry beats a group; of two matching groups the longer prefix wins. */
  placementOf(name: string): ToolPlacement {
    const match = this.patterns.match(name)
    if (match && match.index !== this.restIndex) return { kind: match.kind === 'exact' ? 'listed' : 'group', entry: match.entry, index: match.index }
    return { kind: 'rest', entry: TOOL_ORDER_REST, index: this.restIndex }
  }

  /** Listed names that no provider knows, in list order. */
  unknownNames(knows: (name: string) => boolean): string[] {
    return this.names.filter((name) => name !== TOOL_ORDER_REST && !isToolGroup(name) && !knows(name))
  }

  /** Group entries whose prefix starts none of `known`, in list order. */
  emptyGroups(known: Iterable<string>): string[] {
    return this.patterns.emptyGroups(known)
  }

  /** Throws the configuration error when a listed name is known to no provider, or a group matches no known tool. */
  assertKnown(knows: (name: string) => boolean, knownNames: () => string[], eachKnown: () => Iterable<string> = knownNames): void {
    const unknown = this.unknownNames(knows)
    const empty = this.emptyGroups(this.patterns.hasGroups ? eachKnown() : [])
    if (unknown.length === 0 && empty.length === 0) return
    const parts: string[] = []
    if (unknown.length) parts.push(unknown.length === 1 ? `unregistered tool ${quote(unknown[0])}` : `unregistered tools ${listNames(unknown.map(quote))}`)
    if (empty.length) parts.push(empty.length === 1 ? `group ${quote(empty[0])} that matches no registered tool` : `groups ${listNames(empty.map(quote))} that match no registered tool`)
    throw new SystemPromptError('UNKNOWN_TOOL_ORDER_NAME', `toolOrder lists ${parts.join(' and ')}; known tools: ${listNames(knownNames())}`)
  }

  /**
   * Listed tools at their listed positions, grouped tools at their group's position, the rest at the rest
   * entry. `sorted` must already be in code-unit order, which groups and the rest then keep. In that order a
   * group's tools are one run (the names that start with its prefix), so each group costs a binary search and
   * its run, and each listed name a binary search: no lookup per tool. Groups are applied shortest prefix
   * first, so a longer one wins; listed names last, so a tool's own entry beats any group.
   */
  arrange(sorted: readonly ToolSchema[]): ToolSchema[] {
    const slots = new Int32Array(sorted.length).fill(this.restIndex)
    for (const { prefix, after, index } of this.groupRuns) {
      const start = lowerBound(sorted, prefix)
      // The run ends where names stop starting with the prefix: found by a second search, not by reading each name.
      const end = after === undefined ? runEnd(sorted, start, prefix) : lowerBound(sorted, after)
      slots.fill(index, start, end)
    }
    for (const { name, index } of this.listed) {
      const at = indexOfName(sorted, name)
      if (at >= 0) slots[at] = index
    }
    const starts = new Int32Array(this.names.length + 1)
    // Counting sort by slot, stable: each slot's tools stay in code-unit order.
    for (let at = 0; at < slots.length; at++) starts[slots[at]! + 1] = starts[slots[at]! + 1]! + 1
    for (let slot = 1; slot < starts.length; slot++) starts[slot] = starts[slot]! + starts[slot - 1]!
    const result: ToolSchema[] = new Array(sorted.length)
    for (let at = 0; at < sorted.length; at++) {
      const slot = slots[at]!
      result[starts[slot]!] = sorted[at]!
      starts[slot] = starts[slot]! + 1
    }
    return result
  }
}

/**
 * The least string in code-unit order above every string that starts with `prefix`: the prefix with its last
 * code unit raised by one (undefined when that unit is 0xFFFF, where the run is found by reading names).
 */
function successor(prefix: string): string | undefined {
  const last = prefix.charCodeAt(prefix.length - 1)
  return last === 0xffff ? undefined : prefix.slice(0, -1) + String.fromCharCode(last + 1)
}

function runEnd(sorted: readonly ToolSchema[], start: number, prefix: string): number {
  let end = start
  while (end < sorted.length && sorted[end]!.name.startsWith(prefix)) end++
  return end
}

/**
 * The canonical model-facing order of `tools`: with `toolOrder`, listed tools at their positions and the
 * rest in code-unit order at the rest entry; without it, plain code-unit order. `knownNames` (default:
 * the tools' names) decides which listed names are unregistered.
 */
export function canonicalToolOrder(tools: readonly ToolSchema[], toolOrder?: readonly string[], knownNames?: readonly string[]): ToolSchema[] {
  const sorted = [...tools].sort(byName)
  if (!toolOrder) return sorted
  const policy = new ToolOrderPolicy(toolOrder)
  const known = new Set(knownNames ?? tools.map((tool) => tool.name))
  policy.assertKnown((name) => known.has(name), () => [...known].sort(compareCodeUnits))
  return policy.arrange(sorted)
}
