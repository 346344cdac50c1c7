/** The parts of a schemastery schema the key walk reads; any other schema (or none) counts as open. */
interface SchemaLike {
  type?: string
  dict?: Record<string, SchemaLike>
  list?: SchemaLike[]
  inner?: SchemaLike
}

/** A schema's alternatives: unions and transforms stand for their members; intersects stay whole. */
function schemaAlternatives(schema: SchemaLike): SchemaLike[] {
  if (schema.type === 'union') return (schema.list ?? []).flatMap(schemaAlternatives)
  if (schema.type === 'transform' && schema.inner) return schemaAlternatives(schema.inner)
  return [schema]
}

// the declared keys of a mapping schema with their value schemas; undefined when it accepts any key
function objectKeys(schema: SchemaLike): Map<string, SchemaLike[]> | undefined {
  if (schema.type === 'object' && schema.dict) {
    return new Map(Object.entries(schema.dict).map(([key, value]) => [key, [value]]))
  }
  if (schema.type !== 'intersect' || !schema.list) return undefined
  const merged = new Map<string, SchemaLike[]>()
  for (const member of schema.list) {
    const keys = declaredKeys(schemaAlternatives(member))
    if (!keys) return undefined
    for (const [key, values] of keys) merged.set(key, [...merged.get(key) ?? [], ...values])
  }
  return merged
}

/**
 * The keys the mapping schemas among `schemas` declare, each with the schemas of its value (intersected
 * objects merged); undefined when none is a mapping or one accepts any key (dict, any).
 */
function declaredKeys(schemas: SchemaLike[]): Map<string, SchemaLike[]> | undefined {
  const mappings = schemas.filter((schema) => ['object', 'intersect', 'dict', 'any'].includes(schema.type ?? ''))
  if (!mappings.length) return undefined
  const merged = new Map<string, SchemaLike[]>()
  for (const schema of mappings) {
    const keys = objectKeys(schema)
    if (!keys) return undefined
    for (const [key, values] of keys) merged.set(key, [...merged.get(key) ?? [], ...values])
  }
  return merged
}

/**
 * The part of a parent's config that a child plugin takes: exactly the keys the child's schema declares.
 * Absent stays absent: a key whose value is `undefined` is left out, so the child's own schema decides
 * (an omitted `toolOrder` never turns into `[]` or an explicit `undefined` on the way down).
 */
export function forwardConfig<T>(schema: unknown, config: object): T {
  const open = !schema || (typeof schema !== 'object' && typeof schema !== 'function')
  const keys = open ? undefined : declaredKeys(schemaAlternatives(schema as SchemaLike))
  if (!keys) throw new TypeError('forwardConfig needs a schema that declares its keys (an object or an intersect of objects)')
  const forwarded: Record<string, unknown> = {}
  for (const key of keys.keys()) {
    const value = (config as Record<string, unknown>)[key]
    if (value !== undefined) forwarded[key] = value
  }
  return forwarded as T
}

/** A key an app file wrote that the plugin's schema does not declare, with the keys it does declare. */
export interface UnknownKey {
  path: string
  valid: string[]
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype

/**
 * The first key of `config`, at any depth of mappings and lists, that `schema` does not declare.
 * Schemastery drops such keys silently, so a misspelled key would otherwise run with its default.
 * Parts of the config under an open schema (dict, any, or a schema of another kind) are not checked.
 */
export function findUnknownKey(schema: unknown, config: unknown, path = '$'): UnknownKey | undefined {
  if (!schema || (typeof schema !== 'object' && typeof schema !== 'function')) return undefined
  const schemas = schemaAlternatives(schema as SchemaLike)
  if (Array.isArray(config)) {
    const items = schemas.filter((item) => item.type === 'array' && item.inner).map((item) => item.inner!)
    if (items.length !== 1) return undefined
    for (const [index, item] of config.entries()) {
      const found = findUnknownKey(items[0], item, `${path}[${index}]`)
      if (found) return found
    }
    return undefined
  }
  if (!isMapping(config)) return undefined
  const keys = declaredKeys(schemas)
  if (!keys) return undefined
  for (const [key, value] of Object.entries(config)) {
    const at = /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`
    const values = keys.get(key)
    if (!values) return { path: at, valid: [...keys.keys()] }
    if (values.length !== 1) continue
    const found = findUnknownKey(values[0], value, at)
    if (found) return found
  }
  return undefined
}
