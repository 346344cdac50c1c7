import { deepFreeze, quote, type ToolSchema } from 'dsh-core'
import { SystemPromptError } from './errors.ts'

/** Snapshots keyed by the provider's object: a provider that returns the same schema again pays nothing. */
const snapshots = new WeakMap<object, ToolSchema>()
const frozen = new WeakSet<object>()

/**
 * An immutable copy of a provider's schema. Providers own their objects; the assembly owns its copy, so
 * neither side can reach the other by mutation. A changed definition must arrive as a new object.
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
  const copy = deepFreeze({ name, description, parameters: structuredClone(parameters) }) as ToolSchema
  snapshots.set(schema, copy)
  frozen.add(copy)
  return copy
}
