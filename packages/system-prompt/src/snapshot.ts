import { canonicalJson, compareCodeUnits, deepFreeze, frozenJsonCopy, isDeepFrozen, quote, type ToolSchema } from 'dsh-core'
import { SystemPromptError } from './errors.ts'

/**
 * How the object keys of a tool's `parameters` are ordered in the assembly (and so in the request bytes):
 * `canonical` sorts them in code-unit order at every depth, `registered` keeps the provider's order.
 */
export type SchemaKeyOrder = 'canonical' | 'registered'

export const SCHEMA_KEY_ORDERS: readonly SchemaKeyOrder[] = ['canonical', 'registered']

interface Store {
  /** Snapshots keyed by the provider's object: a provider that returns the same schema again pays nothing. */
  snapshots: WeakMap<object, ToolSchema>
  /** Snapshots this store issued, which are their own snapshot. */
  issued: WeakSet<object>
  /**
   * Frozen parameters by the JSON text of the provider's parameters, so a provider that builds equal schemas
   * anew on every call (a bridge mapping its tools each time) shares one frozen copy instead of cloning each
   * time. Held weakly: a text stays only while some snapshot still uses its parameters.
   */
  interned: Map<string, WeakRef<object>>
  /** Copies in this order of deeply frozen parameters kept in another order, by the frozen object. */
  reordered: WeakMap<object, object>
}

// One store per key order: a snapshot issued in one order is not a snapshot in the other.
const stores: Record<SchemaKeyOrder, Store> = {
  canonical: { snapshots: new WeakMap(), issued: new WeakSet(), interned: new Map(), reordered: new WeakMap() },
  registered: { snapshots: new WeakMap(), issued: new WeakSet(), interned: new Map(), reordered: new WeakMap() },
}

const forget = new FinalizationRegistry<{ interned: Store['interned']; key: string }>(({ interned, key }) => {
  if (interned.get(key)?.deref() === undefined) interned.delete(key)
})

/** True when `value` and everything reachable through its own data properties is frozen. */
function isDeeplyFrozen(value: object, depth = 0): boolean {
  if (isDeepFrozen(value)) return true
  if (!Object.isFrozen(value) || depth > 64) return false
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key]
    if (member && typeof member === 'object' && !isDeeplyFrozen(member, depth + 1)) return false
  }
  return true
}

/** True when the object keys of `value` are in code-unit order at every depth, as `canonicalJson` leaves them. */
function isCanonical(value: unknown, depth = 0): boolean {
  if (value === null || typeof value !== 'object') return true
  if (depth > 64) return false
  if (Array.isArray(value)) return value.every((item) => isCanonical(item, depth + 1))
  const keys = Object.keys(value)
  for (let index = 1; index < keys.length; index++) if (compareCodeUnits(keys[index - 1]!, keys[index]!) > 0) return false
  return keys.every((key) => isCanonical((value as Record<string, unknown>)[key], depth + 1))
}

/** True when `parameters` can serve as they are in `keyOrder`: deeply frozen, and canonical if that is asked. */
function usableAsIs(parameters: object, keyOrder: SchemaKeyOrder): boolean {
  return isDeeplyFrozen(parameters) && (keyOrder === 'registered' || isCanonical(parameters))
}

/**
 * Frozen parameters in `keyOrder`: a deeply frozen object already in that order is kept as it is (no one can
 * change it); a deeply frozen one in another order gets one copy, remembered by identity; otherwise
 * parameters equal to ones seen before share one frozen copy.
 */
function frozenParameters(parameters: object, keyOrder: SchemaKeyOrder, store: Store, asIs: boolean): object {
  if (asIs) {
    // Registered with dsh-core, so later deep freezes of requests that carry it stop here.
    deepFreeze(parameters)
    return parameters
  }
  if (isDeeplyFrozen(parameters)) {
    // Cannot change, so its identity is its key: no text to build and keep (registered tools take this way).
    let copy = store.reordered.get(parameters)
    if (!copy) store.reordered.set(parameters, copy = frozenCopy(parameters, keyOrder))
    return copy
  }
  const key = JSON.stringify(parameters)
  const known = store.interned.get(key)?.deref()
  if (known) return known
  const copy = frozenCopy(parameters, keyOrder)
  store.interned.set(key, new WeakRef(copy))
  forget.register(copy, { interned: store.interned, key })
  return copy
}

/** A deeply frozen copy in `keyOrder`, frozen and registered with dsh-core in the pass that copies it. */
function frozenCopy(parameters: object, keyOrder: SchemaKeyOrder): object {
  return keyOrder === 'canonical' ? frozenJsonCopy(canonicalJson(parameters)) : deepFreeze(structuredClone(parameters))
}

/** True when `schema` went through `snapshotSchema` in `keyOrder` before (as input or as the snapshot issued). */
export function snapshotted(schema: object, keyOrder: SchemaKeyOrder): boolean {
  const store = stores[keyOrder]
  return store.issued.has(schema) || store.snapshots.has(schema)
}

/** Exactly name, description, parameters in that order: the bytes a snapshot serializes to. */
function hasSnapshotKeys(schema: object): boolean {
  const keys = Object.keys(schema)
  return keys.length === 3 && keys[0] === 'name' && keys[1] === 'description' && keys[2] === 'parameters'
}

/**
 * An immutable copy of a provider's schema, its `parameters` keys in `keyOrder` (default canonical).
 * Providers own their objects; the assembly owns its copy, so neither side can reach the other by
 * mutation. A changed definition must arrive as a new object. The copy is made once per object, and nothing
 * is cloned twice: a deeply frozen input already in that key order is its own snapshot, and equal parameters share
 * one frozen copy.
 */
export function snapshotSchema(schema: unknown, owner: string, keyOrder: SchemaKeyOrder = 'canonical'): ToolSchema {
  if (!schema || typeof schema !== 'object') {
    throw new SystemPromptError('INVALID_TOOL_SCHEMA', `tool provider ${owner} returned a schema that is not an object: ${quote(schema)}`)
  }
  const store = stores[keyOrder]
  if (!store) {
    throw new SystemPromptError('INVALID_SCHEMA_KEY_ORDER', `schemaKeyOrder must be one of ${SCHEMA_KEY_ORDERS.map(quote).join(', ')}, got ${quote(keyOrder)}`)
  }
  if (store.issued.has(schema)) return schema as ToolSchema
  const cached = store.snapshots.get(schema)
  if (cached) return cached
  const { name, description, parameters } = schema as Record<string, unknown>
  if (typeof name !== 'string' || name === '') {
    throw new SystemPromptError('INVALID_TOOL_SCHEMA', `tool provider ${owner} returned a tool whose name is not a non-empty string: ${quote(name)}`)
  }
  if (typeof description !== 'string') {
    throw new SystemPromptError('INVALID_TOOL_SCHEMA', `tool ${quote(name)} from ${owner} has a description that is not a string`)
  }
  if (!parameters || typeof parameters !== 'object' || Array.isArray(parameters)) {
    throw new SystemPromptError('INVALID_TOOL_SCHEMA', `tool ${quote(name)} from ${owner} has parameters that are not a JSON Schema object`)
  }
  const asIs = usableAsIs(parameters, keyOrder)
  const exact = asIs && Object.isFrozen(schema) && hasSnapshotKeys(schema)
  const copy = exact ? schema as ToolSchema
    : deepFreeze({ name, description, parameters: frozenParameters(parameters, keyOrder, store, asIs) }) as ToolSchema
  if (exact) {
    // Both: a schema registered by `frozenJsonCopy` is registered alone, without its parameters.
    deepFreeze(schema)
    deepFreeze(parameters)
  } else store.snapshots.set(schema, copy)
  store.issued.add(copy)
  return copy
}
