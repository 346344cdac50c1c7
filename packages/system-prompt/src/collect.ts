import { compareCodeUnits, type ToolSchema, quote } from 'dsh-core'
import { SystemPromptError } from './errors.ts'
import { snapshotSchema, type SchemaKeyOrder } from './snapshot.ts'
import { DuplicateName, mergeSorted } from './merge.ts'
import { TOOL_ORDER_REST } from './tool-order.ts'
import type { ProviderEntry } from './layers.ts'
import type { AssembleContext, ToolProviderResult } from './types.ts'


/** One provider's answer, snapshotted, checked and sorted once per distinct `schemas` array. */
interface Prepared {
  sorted: readonly ToolSchema[]
  names: ReadonlySet<string>
}

// per key order: the same frozen array prepares to different snapshots in each
const preparedBy: Record<SchemaKeyOrder, WeakMap<readonly ToolSchema[], Prepared>> = { canonical: new WeakMap(), registered: new WeakMap() }
const knownSets = new WeakMap<readonly string[], ReadonlySet<string>>()

function prepare(schemas: readonly ToolSchema[], owner: string, keyOrder: SchemaKeyOrder): Prepared {
  const prepared = preparedBy[keyOrder]
  const cached = prepared.get(schemas)
  if (cached) return cached
  const sorted = schemas.map((schema) => snapshotSchema(schema, owner, keyOrder))
  sorted.sort((a, b) => compareCodeUnits(a.name, b.name))
  const names = new Set<string>()
  for (const schema of sorted) {
    if (schema.name === TOOL_ORDER_REST) {
      throw new SystemPromptError('RESERVED_TOOL_NAME', `tool provider ${owner} returned a tool named ${quote(TOOL_ORDER_REST)}, which is reserved for toolOrder's rest entry`)
    }
    if (names.has(schema.name)) {
      throw new SystemPromptError('DUPLICATE_TOOL', `tool ${quote(schema.name)} is contributed twice by ${owner}; providers reject duplicate tool names`)
    }
    names.add(schema.name)
  }
  const result = { sorted, names }
  // A frozen input cannot change behind the cache; a mutable one is re-read each time it is returned.
  if (Object.isFrozen(schemas)) prepared.set(schemas, result)
  return result
}

function knownSet(knownNames: readonly string[] | undefined, fallback: ReadonlySet<string>): ReadonlySet<string> {
  if (!knownNames) return fallback
  let set = knownSets.get(knownNames)
  if (!set) {
    set = new Set([...knownNames, ...fallback])
    if (Object.isFrozen(knownNames)) knownSets.set(knownNames, set)
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
  private last: { keys: unknown[]; collection: Collection } | undefined

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
    const parts = entries.map(({ entry, result }) => ({ entry, result, prepared: prepare(result.schemas, entry.owner, this.keyOrder) }))
    let tools: ToolSchema[]
    try {
      tools = mergeSorted(parts.map((part) => part.prepared.sorted))
    } catch (error) {
      if (!(error instanceof DuplicateName)) throw error
      const owners = parts.filter((part) => part.prepared.names.has(error.name)).map((part) => part.entry.owner)
      throw new SystemPromptError('DUPLICATE_TOOL', `tool ${quote(error.name)} is contributed twice (by ${owners.join(' and ')}); providers reject duplicate tool names`)
    }
    const known = parts.map((part) => knownSet(part.result.knownNames, part.prepared.names))
    const collection: Collection = {
      tools,
      knows: (name) => known.some((set) => set.has(name)),
      knownNames: () => [...new Set(known.flatMap((set) => [...set]))].sort(compareCodeUnits),
      eachKnown: function* () { for (const set of known) yield* set },
      // in tool order: the order providers registered in is observable nowhere
      owners: () => {
        const ownerOf = (name: string) => parts.find((part) => part.prepared.names.has(name))!.entry.owner
        return new Map(tools.map((tool) => [tool.name, ownerOf(tool.name)]))
      },
    }
    this.last = { keys, collection }
    return collection
  }
}

function sameKeys(a: unknown[], b: unknown[]) {
  return a.length === b.length && a.every((value, index) => value === b[index])
}
