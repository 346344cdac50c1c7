import { compareCodeUnits, type ToolSchema, quote } from 'dsh-core'
import { SystemPromptError } from './errors.ts'
import { snapshotSchema, snapshotted, type SchemaKeyOrder } from './snapshot.ts'
import { sameAnswer } from './same-schema.ts'
import { follow, type LastAnswer } from './follow.ts'
import { DuplicateName, mergeSorted } from './merge.ts'
import { TOOL_ORDER_REST } from './tool-order.ts'
import type { ProviderEntry } from './layers.ts'
import type { AssembleContext, ToolProviderResult } from './types.ts'


/** One provider's answer, snapshotted, checked and sorted once per distinct `schemas` array. */
class Prepared implements LastAnswer {
  private nameSet: ReadonlySet<string> | undefined

  /** `inOrder`: the snapshots in the provider's order (`inputs`' order), which the next answer is compared with. */
  constructor(readonly sorted: readonly ToolSchema[], readonly inOrder: readonly ToolSchema[], readonly inputs: readonly unknown[]) {}

  /** The tools' names (built on first use: an assembly without toolOrder never asks). */
  get names(): ReadonlySet<string> {
    return this.nameSet ??= new Set(this.sorted.map((schema) => schema.name))
  }
}

// per key order: the same frozen array prepares to different snapshots in each
const preparedBy: Record<SchemaKeyOrder, WeakMap<readonly ToolSchema[], Prepared>> = { canonical: new WeakMap(), registered: new WeakMap() }
const knownSets = new WeakMap<readonly string[], ReadonlySet<string>>()
const byName = (a: ToolSchema, b: ToolSchema) => compareCodeUnits(a.name, b.name)

/** Below this many tools a full sort is as cheap as following the changes. */
const INCREMENTAL_MIN = 256

function prepare(schemas: readonly ToolSchema[], owner: string, keyOrder: SchemaKeyOrder, previous?: Prepared): Prepared {
  const prepared = preparedBy[keyOrder]
  const cached = prepared.get(schemas)
  if (cached) return cached
  // A provider that builds equal schemas anew on every call (a bridge mapping its tools each time): one walk
  // that compares them with the last canonical snapshots, allocating nothing, instead of copying, sorting and
  // freezing them again. Any difference takes the full way below.
  if (previous && keyOrder === 'canonical' && sameAnswer(schemas, previous.inOrder, (schema) => snapshotted(schema, keyOrder))) {
    if (Object.isFrozen(schemas)) prepared.set(schemas, previous)
    return previous
  }
  const snap = (schema: unknown) => snapshotSchema(schema, owner, keyOrder)
  const followed = previous && previous.sorted.length >= INCREMENTAL_MIN ? followChanges(previous, schemas, snap, owner) : undefined
  const snapshots = followed?.inOrder ?? schemas.map(snap)
  const sorted = followed?.sorted ?? [...snapshots].sort(byName)
  // Followed: the kept names were checked with the last answer, and the insertion refused duplicates.
  const unchecked = followed ? followed.added : sorted
  for (let index = 0; index < unchecked.length; index++) {
    const { name } = unchecked[index]!
    if (name === TOOL_ORDER_REST) {
      throw new SystemPromptError('RESERVED_TOOL_NAME', `tool provider ${owner} returned a tool named ${quote(TOOL_ORDER_REST)}, which is reserved for toolOrder's rest entry`)
    }
    if (!followed && index > 0 && sorted[index - 1]!.name === name) throw duplicate(name, owner)
  }
  // A frozen list is kept as it is; a mutable one is copied, so the next answer is compared with what this one held.
  const result = new Prepared(sorted, snapshots, Object.isFrozen(schemas) ? schemas : [...schemas])
  // A frozen input cannot change behind the cache; a mutable one is re-read each time it is returned.
  if (Object.isFrozen(schemas)) prepared.set(schemas, result)
  return result
}

/**
 * The provider's new answer worked out from its last one (`follow`): the tools it still returns keep their
 * snapshots and order, and only the new ones are snapshotted, sorted and merged in, so a change of a few tools
 * (an MCP server re-listing, one registration) costs O(N) instead of a sort of all N. Undefined when more than
 * an eighth of the list changed.
 */
function followChanges(previous: Prepared, schemas: readonly unknown[], snap: (schema: unknown) => ToolSchema, owner: string) {
  try {
    return follow(previous, schemas, snap, Math.max(8, schemas.length >> 3))
  } catch (error) {
    if (error instanceof DuplicateName) throw duplicate(error.name, owner)
    throw error
  }
}

function duplicate(name: string, owner: string) {
  return new SystemPromptError('DUPLICATE_TOOL', `tool ${quote(name)} is contributed twice by ${owner}; providers reject duplicate tool names`)
}

function knownSet(knownNames: readonly string[] | undefined, fallback: ReadonlySet<string>): ReadonlySet<string> {
  if (!knownNames) return fallback
  let set = knownSets.get(knownNames)
  if (!set) {
    const names = new Set(knownNames)
    for (const name of fallback) names.add(name)
    if (Object.isFrozen(knownNames)) knownSets.set(knownNames, names)
    set = names
  }
  return set
}

export interface Collection {
  /** All provider tools, snapshotted, in code-unit order. */
  tools: readonly ToolSchema[]
  /** Whether any provider knows `name` (shown or hidden). */
  knows(name: string): boolean
  /** Every known name, for error messages. */
  knownNames(): string[]
  /** Every known name, unsorted, possibly repeated: for checks that only need to see each one. */
  eachKnown(): Iterable<string>
  owners(): Map<string, string>
}

/**
 * Asks every provider, once per assembly, and merges their answers. Each provider's list is prepared
 * once per array identity, so a provider that hands back the same frozen array pays only the merge.
 */
export class ToolCollector {
  private last: { keys: unknown[]; collection: Collection; parts: LastPart[] } | undefined
  /** Each provider's last prepared answer, to follow its next one by changes. */
  private previous = new Map<ProviderEntry, Prepared>()

  constructor(private readonly keyOrder: SchemaKeyOrder = 'canonical') {}

  collect(providers: Iterable<ProviderEntry>, context: AssembleContext): Collection {
    const entries: { entry: ProviderEntry; result: ToolProviderResult }[] = []
    const keys: unknown[] = []
    for (const entry of providers) {
      const result = entry.provide(context)
      if (!result || !Array.isArray(result.schemas)) {
        throw new SystemPromptError('INVALID_PROVIDER_RESULT', `tool provider ${entry.owner} must return { schemas: ToolSchema[] }, got ${quote(result)}`)
      }
      if (result.knownNames !== undefined && !Array.isArray(result.knownNames)) {
        throw new SystemPromptError('INVALID_PROVIDER_RESULT', `tool provider ${entry.owner} returned knownNames that is not a list: ${quote(result.knownNames)}`)
      }
      entries.push({ entry, result })
      keys.push(entry, result.schemas, result.knownNames)
    }
    if (this.last && sameKeys(this.last.keys, keys) && keys.every((key) => !Array.isArray(key) || Object.isFrozen(key))) {
      return this.last.collection
    }
    const parts = entries.map(({ entry, result }) => ({ entry, result, prepared: prepare(result.schemas, entry.owner, this.keyOrder, this.previous.get(entry)) }))
    this.previous = new Map(parts.map((part) => [part.entry, part.prepared]))
    // Every provider answered as last time (each preparation reused): the last collection is still true.
    if (this.last && sameParts(this.last.parts, parts)) {
      this.last.keys = keys
      return this.last.collection
    }
    let tools: ToolSchema[]
    try {
      tools = mergeSorted(parts.map((part) => part.prepared.sorted))
    } catch (error) {
      if (!(error instanceof DuplicateName)) throw error
      const owners = parts.filter((part) => part.prepared.names.has(error.name)).map((part) => part.entry.owner)
      throw new SystemPromptError('DUPLICATE_TOOL', `tool ${quote(error.name)} is contributed twice (by ${owners.join(' and ')}); providers reject duplicate tool names`)
    }
    // Built on first use: only a toolOrder (and its error messages) asks which names are known.
    let known: ReadonlySet<string>[] | undefined
    const knownParts = () => known ??= parts.map((part) => knownSet(part.result.knownNames, part.prepared.names))
    const collection: Collection = {
      tools,
      knows: (name) => knownParts().some((set) => set.has(name)),
      knownNames: () => [...new Set(knownParts().flatMap((set) => [...set]))].sort(compareCodeUnits),
      // No set is built: a check that only needs to see each name (toolOrder's groups) often stops early.
      eachKnown: function* () {
        for (const part of parts) {
          if (part.result.knownNames) yield* part.result.knownNames
          for (const tool of part.prepared.sorted) yield tool.name
        }
      },
      // in tool order: the order providers registered in is observable nowhere
      owners: () => {
        const ownerOf = (name: string) => parts.find((part) => part.prepared.names.has(name))!.entry.owner
        return new Map(tools.map((tool) => [tool.name, ownerOf(tool.name)]))
      },
    }
    this.last = { keys, collection, parts: parts.map(({ entry, result, prepared }) => ({ entry, prepared, knownNames: copyOf(result.knownNames) })) }
    return collection
  }
}

interface LastPart {
  entry: ProviderEntry
  prepared: Prepared
  /** A copy of the provider's knownNames (or the frozen list itself), so a change in place is seen. */
  knownNames: readonly string[] | undefined
}

const copyOf = (names: readonly string[] | undefined) => !names || Object.isFrozen(names) ? names : [...names]

function sameParts(last: readonly LastPart[], parts: readonly { entry: ProviderEntry; result: ToolProviderResult; prepared: Prepared }[]) {
  if (last.length !== parts.length) return false
  for (let index = 0; index < parts.length; index++) {
    const before = last[index]!
    const part = parts[index]!
    if (before.entry !== part.entry || before.prepared !== part.prepared || !sameNames(before.knownNames, part.result.knownNames)) return false
  }
  return true
}

function sameNames(a: readonly string[] | undefined, b: readonly string[] | undefined) {
  if (a === b) return true
  if (!a || !b || a.length !== b.length) return false
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false
  return true
}

function sameKeys(a: unknown[], b: unknown[]) {
  return a.length === b.length && a.every((value, index) => value === b[index])
}
