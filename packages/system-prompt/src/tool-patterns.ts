import { PrefixIndex } from './prefix-index.ts'

/** The mark that ends a group entry: `mcp__github__*` stands for every tool whose name starts with `mcp__github__`. */
export const TOOL_ORDER_GROUP = '*'

/** Why a string is not a tool-name pattern: empty, a `*` before the end, or a `*` with no prefix. */
export type ToolPatternProblem = 'empty' | 'star-inside' | 'bare-star'

/**
 * Checks one pattern of the shape `toolOrder` and `permissions` share: an exact tool name, or a prefix
 * group ending in one `*`. Returns what is wrong, or undefined for a valid pattern.
 */
export function toolPatternProblem(entry: unknown): ToolPatternProblem | undefined {
  if (typeof entry !== 'string' || entry === '') return 'empty'
  const star = entry.indexOf(TOOL_ORDER_GROUP)
  if (star >= 0 && star !== entry.length - 1) return 'star-inside'
  if (entry === TOOL_ORDER_GROUP) return 'bare-star'
  return undefined
}

/** Which entry of a pattern list matched a name, and how. */
export interface ToolPatternMatch {
  kind: 'exact' | 'group'
  /** The entry as written. */
  entry: string
  /** 0-based index of that entry in the list. */
  index: number
}

/**
 * A list of valid, distinct patterns, indexed once: exact names in a map, group prefixes in a trie. A
 * name's own entry beats a group; of two matching groups the longer prefix wins. A lookup costs one walk
 * of the name, whatever the number of groups. `isGroup` says which entries are groups (`toolOrder` keeps
 * its rest entry out of them).
 */
export class ToolPatterns {
  private readonly exact = new Map<string, number>()
  private readonly groupIndex: number[] = []
  private readonly groupEntries: string[] = []
  private readonly groups: PrefixIndex

  constructor(readonly entries: readonly string[], isGroup: (entry: string) => boolean = (entry) => entry.endsWith(TOOL_ORDER_GROUP)) {
    const prefixes: string[] = []
    entries.forEach((entry, index) => {
      if (isGroup(entry)) {
        prefixes.push(entry.slice(0, -TOOL_ORDER_GROUP.length))
        this.groupIndex.push(index)
        this.groupEntries.push(entry)
      } else {
        this.exact.set(entry, index)
      }
    })
    this.groups = new PrefixIndex(prefixes)
  }

  /** The entry that matches `name`, or undefined. */
  match(name: string): ToolPatternMatch | undefined {
    const exact = this.exact.get(name)
    if (exact !== undefined) return { kind: 'exact', entry: name, index: exact }
    const group = this.groups.longest(name)
    return group >= 0 ? { kind: 'group', entry: this.groupEntries[group]!, index: this.groupIndex[group]! } : undefined
  }

  /** Group entries whose prefix starts none of `known`, in list order. */
  emptyGroups(known: Iterable<string>): string[] {
    if (this.groups.size === 0) return []
    const hit = new Array<boolean>(this.groups.size).fill(false)
    // Stops once every group has a name: a few names into the list, usually, however many tools there are.
    let left = this.groups.size
    for (const name of known) if ((left -= this.groups.markAll(name, hit)) === 0) break
    return this.groupEntries.filter((_, group) => !hit[group])
  }

  get hasGroups(): boolean {
    return this.groups.size > 0
  }
}
