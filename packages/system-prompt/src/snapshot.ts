import { deepFreeze, isDeepFrozen, quote, type ToolSchema } from 'dsh-core'
import { SystemPromptError } from './errors.ts'

/** Snapshots keyed by the provider's object: a provider that returns the same schema again pays nothing. */
const snapshots = new WeakMap<object, ToolSchema>()
/** Every snapshot issued, and every parameters object known to be deeply frozen. */
const frozen = new WeakSet<object>()
/**
 * Frozen parameters by their JSON text, so a provider that builds equal schemas anew on every call (a
 * bridge mapping its tools each time) shares one frozen copy instead of cloning each time. Held weakly:
 * a text stays only while some snapshot still uses its parameters.
 */
const interned = new Map<string, WeakRef<object>>()
const forget = new FinalizationRegistry<string>((key) => {
  if (interned.get(key)?.deref() === undefined) interned.delete(key)
})

/** True when `value` and everything reachable through its own data properties is frozen. */
function isDeeplyFrozen(value: object, depth = 0): boolean {
  if (frozen.has(value) || isDeepFrozen(value)) return true
  if (!Object.isFrozen(value) || depth > 64) return false
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, unknown>)[key]
    if (member && typeof member === 'object' && !isDeeplyFrozen(member, depth + 1)) return false
  }
  return true
}

/** Frozen parameters equal to `parameters`: the object itself when already deeply frozen, else a shared copy. */
function frozenParameters(parameters: object): object {
  if (isDeeplyFrozen(parameters)) {
    // Registered with dsh-core too, so later deep freezes of requests that carry it stop here.
    frozen.add(deepFreeze(parameters))
    return parameters
  }
  const key = JSON.stringify(parameters)
  const known = interned.get(key)?.deref()
  if (known) return known
  const copy = deepFreeze(structuredClone(parameters))
  frozen.add(copy)
  interned.set(key, new WeakRef(copy))
  forget.register(copy, key)
  return copy
}

/** Exactly name, description, parameters in that order: the bytes a snapshot serializes to. */
function hasSnapshotKeys(schema: object): boolean {
  const keys = Object.keys(schema)
  return keys.length === 3 && keys[0] === 'name' && keys[1] === 'description' && keys[2] === 'parameters'
}

/**
 * An immutable copy of a provider's schema. Providers own their objects; the assembly owns its copy, so
 * neither side can reach the other by mutation. A changed definition must arrive as a new object.
 * Nothing is cloned twice: a deeply frozen input is kept as it is (no one can change it), and parameters
 * equal to ones seen before share their frozen copy.
 */
export function snapshotSchema(schema: unknown, owner: string): ToolSchema {
  if (!schema || typeof schema !== 'object') {
    throw new SystemPromptError('INVALID_TOOL_SCHEMA', `tool provider ${owner} returned a schema that is not an object: ${quote(schema)}`)
  }
  if (frozen.has(schema)) return schema as ToolSchema
  const cached = snapshots.get(schema)
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
  const exact = Object.isFrozen(schema) && hasSnapshotKeys(schema) && isDeeplyFrozen(parameters)
  const copy = exact ? schema as ToolSchema : deepFreeze({ name, description, parameters: frozenParameters(parameters) }) as ToolSchema
  if (exact) frozen.add(deepFreeze(schema) && parameters)
  else snapshots.set(schema, copy)
  frozen.add(copy)
  return copy
}
