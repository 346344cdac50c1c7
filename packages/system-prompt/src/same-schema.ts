import type { ToolSchema } from 'dsh-core'

const hasOwn = Object.prototype.hasOwnProperty

/**
 * True when `input` would canonicalize to a copy equal to `copy`, a canonical snapshot's parameters: the same
 * own enumerable keys at every depth (in any order, since canonical order sorts them; keys whose value is
 * undefined do not count, as the copy drops them), arrays where the copy has arrays with the same length, and
 * primitives equal as the copy stores them (-0 equals 0, NaN equals NaN). The walk follows the copy, which is
 * finite and acyclic, so it ends on any input, and it allocates nothing.
 */
export function sameCanonical(input: unknown, copy: unknown): boolean {
  if (copy === null || typeof copy !== 'object') return input === copy || (input !== input && copy !== copy)
  if (input === copy) return true
  if (input === null || typeof input !== 'object') return false
  if (Array.isArray(copy)) {
    if (!Array.isArray(input) || input.length !== copy.length) return false
    for (let index = 0; index < copy.length; index++) if (!sameCanonical(input[index], copy[index])) return false
    return true
  }
  if (Array.isArray(input)) return false
  const source = input as Record<string, unknown>
  const target = copy as Record<string, unknown>
  let count = 0
  for (const key in source) {
    if (!hasOwn.call(source, key)) continue
    const value = source[key]
    if (value === undefined) continue
    if (!hasOwn.call(target, key) || !sameCanonical(value, target[key])) return false
    count++
  }
  for (const key in target) if (hasOwn.call(target, key)) count--
  return count === 0
}

/**
 * True when a provider's new answer `schemas` holds, position by position, tools that snapshot to
 * `snapshots` (its last answer's canonical snapshots, in the provider's order): each either is that snapshot,
 * or is an object never snapshotted before (`seen` tells) with the same name, description and canonical
 * parameters. Then the last answer's preparation serves as it is: same names, same checks, same bytes.
 */
export function sameAnswer(schemas: readonly unknown[], snapshots: readonly ToolSchema[], seen: (schema: object) => boolean): boolean {
  if (schemas.length !== snapshots.length) return false
  for (let index = 0; index < schemas.length; index++) {
    const schema = schemas[index]
    const snapshot = snapshots[index]!
    if (schema === snapshot) continue
    if (schema === null || typeof schema !== 'object' || seen(schema)) return false
    const { name, description, parameters } = schema as Record<string, unknown>
    if (name !== snapshot.name || description !== snapshot.description) return false
    if (parameters === null || typeof parameters !== 'object' || Array.isArray(parameters)) return false
    if (!sameCanonical(parameters, snapshot.parameters)) return false
  }
  return true
}
