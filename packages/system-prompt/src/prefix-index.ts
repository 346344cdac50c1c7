/** One node of the prefix trie: children by UTF-16 code unit, and the group ending here, if any. */
interface TrieNode {
  children: Map<number, TrieNode>
  group: number
}

const node = (): TrieNode => ({ children: new Map(), group: -1 })

/**
 * The prefixes of a `toolOrder`'s group entries, in a trie. A lookup walks the name once, so its cost
 * depends on the name's length, never on how many groups the list has.
 */
export class PrefixIndex {
  private readonly root = node()
  readonly size: number

  /** `prefixes[i]` is the prefix of group `i`; the prefixes are distinct. */
  constructor(prefixes: readonly string[]) {
    prefixes.forEach((prefix, group) => {
      let at = this.root
      for (let index = 0; index < prefix.length; index++) {
        const code = prefix.charCodeAt(index)
        let next = at.children.get(code)
        if (!next) at.children.set(code, next = node())
        at = next
      }
      at.group = group
    })
    this.size = prefixes.length
  }

  /** The group with the longest prefix of `name`, or -1. */
  longest(name: string): number {
    let found = this.root.group
    let at: TrieNode | undefined = this.root
    for (let index = 0; index < name.length; index++) {
      at = at.children.get(name.charCodeAt(index))
      if (!at) break
      if (at.group >= 0) found = at.group
    }
    return found
  }

  /** Marks in `hit` every group whose prefix starts `name` (not only the longest); returns how many were newly marked. */
  markAll(name: string, hit: boolean[]): number {
    let marked = 0
    let at: TrieNode | undefined = this.root
    for (let index = 0; index < name.length; index++) {
      at = at.children.get(name.charCodeAt(index))
      if (!at) return marked
      if (at.group >= 0 && !hit[at.group]) {
        hit[at.group] = true
        marked++
      }
    }
    return marked
  }
}
