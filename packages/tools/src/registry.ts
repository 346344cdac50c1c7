import { compareCodeUnits, type ToolSchema } from 'dsh-core'
import { type ToolProviderResult } from 'dsh-system-prompt'
import type { ToolEntry } from './types.ts'

/**
 * Membership and visibility of tools. It deliberately keeps registration order and never sorts what it
 * provides: the model-facing order is decided by the system prompt's assembly (toolOrder or code units),
 * the one place that owns it.
 */
export class ToolRegistry {
  private readonly entries = new Map<string, ToolEntry>()
  private readonly revealed = new Set<string>()
  /** The provider answer while membership and visibility stay the same; the assembly snapshots by identity. */
  private cached: ToolProviderResult | undefined
  /** Names of deferred tools while membership stays the same (read on every loop step). */
  private deferred: readonly string[] | undefined

  get(name: string): ToolEntry | undefined {
    return this.entries.get(name)
  }

  has(name: string): boolean {
    return this.entries.has(name)
  }

  /** How many tools are registered here. */
  get size(): number {
    return this.entries.size
  }

  add(entry: ToolEntry): void {
    this.entries.set(entry.name, entry)
    this.cached = undefined
    this.deferred = undefined
  }

  /** Removes this very entry; false when the name now belongs to someone else or to nobody. */
  remove(entry: ToolEntry): boolean {
    if (this.entries.get(entry.name) !== entry) return false
    this.entries.delete(entry.name)
    this.revealed.delete(entry.name)
    this.cached = undefined
    this.deferred = undefined
    return true
  }

  isVisible(entry: ToolEntry): boolean {
    return !entry.deferred || entry.alwaysLoad || this.revealed.has(entry.name)
  }

  /** Marks a deferred tool revealed or hidden; true when that changed what the model sees. */
  setRevealed(entry: ToolEntry, revealed: boolean): boolean {
    if (!entry.deferred || this.revealed.has(entry.name) === revealed) return false
    if (revealed) this.revealed.add(entry.name)
    else this.revealed.delete(entry.name)
    if (entry.alwaysLoad) return false
    this.cached = undefined
    return true
  }

  /** Registered names in code-unit order. */
  names(filter?: (entry: ToolEntry) => boolean): string[] {
    const names: string[] = []
    for (const entry of this.entries.values()) if (!filter || filter(entry)) names.push(entry.name)
    return names.sort(compareCodeUnits)
  }

  /** Deferred (and not always-loaded) tool names in code-unit order, frozen. */
  deferredNames(): readonly string[] {
    return this.deferred ??= Object.freeze(this.names((entry) => entry.deferred && !entry.alwaysLoad))
  }

  /** The `systemPrompt.tools()` answer: visible schemas plus every known name, rebuilt only after a change. */
  provide(): ToolProviderResult {
    if (this.cached) return this.cached
    const schemas: ToolSchema[] = []
    for (const entry of this.entries.values()) if (this.isVisible(entry)) schemas.push(entry.schema)
    // Unsorted: the assembly only asks whether a name is known, and sorts for messages itself.
    this.cached = Object.freeze({ schemas: Object.freeze(schemas), knownNames: Object.freeze([...this.entries.keys()]) })
    return this.cached
  }
}
