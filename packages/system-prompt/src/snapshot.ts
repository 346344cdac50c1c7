import { canonicalJson, deepFreeze, quote, type ToolSchema } from 'dsh-core'
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
}

// One store per key order: a snapshot issued in one order is not a snapshot in the other.
const stores: Record<SchemaKeyOrder, Store> = {
  canonical: { snapshots: new WeakMap(), issued: new WeakSet() },
  registered: { snapshots: new WeakMap(), issued: new WeakSet() },
}

/**
 * An immutable copy of a provider's schema, its `parameters` keys in `keyOrder` (default canonical).
 * Providers own their objects; the assembly owns its copy, so neither side can reach the other by
 * mutation. A changed definition must arrive as a new object. The copy is made once per object.
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
  const copied = structuredClone(parameters)
  const copy = deepFreeze({ name, description, parameters: keyOrder === 'canonical' ? canonicalJson(copied) : copied }) as ToolSchema
  store.snapshots.set(schema, copy)
  store.issued.add(copy)
  return copy
}
