/** A key an app file wrote that the plugin's schema does not declare, with the keys it does declare. */
export interface UnknownKey {
  path: string
  valid: string[]
}

// the parts of a schemastery schema this check reads; any other schema (or none) is treated as open
interface SchemaLike {
  type?: string
  dict?: Record<string, SchemaLike>
  list?: SchemaLike[]
  inner?: SchemaLike
}

const isMapping = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype

// unions and transforms stand for their members; intersects stay whole, their keys are merged below
function alternatives(schema: SchemaLike): SchemaLike[] {
  if (schema.type === 'union') return (schema.list ?? []).flatMap(alternatives)
  if (schema.type === 'transform' && schema.inner) return alternatives(schema.inner)
  return [schema]
}

// the declared keys of a mapping schema with their value schemas; undefined when it accepts any key
function declaredKeys(schema: SchemaLike): Map<string, SchemaLike[]> | undefined {
  if (schema.type === 'object' && schema.dict) {
    return new Map(Object.entries(schema.dict).map(([key, value]) => [key, [value]]))
  }
  if (schema.type !== 'intersect' || !schema.list) return undefined
  const merged = new Map<string, SchemaLike[]>()
  for (const member of schema.list) {
    const keys = mappingKeys(alternatives(member))
    if (!keys) return undefined
    for (const [key, values] of keys) merged.set(key, [...merged.get(key) ?? [], ...values])
  }
  return merged
}

function mappingKeys(schemas: SchemaLike[]): Map<string, SchemaLike[]> | undefined {
  const mappings = schemas.filter((schema) => ['object', 'intersect', 'dict', 'any'].includes(schema.type ?? ''))
  if (!mappings.length) return undefined
  const merged = new Map<string, SchemaLike[]>()
  for (const schema of mappings) {
    const keys = declaredKeys(schema)
    if (!keys) return undefined
    for (const [key, values] of keys) merged.set(key, [...merged.get(key) ?? [], ...values])
  }
  return merged
}

/**
 * The first key of `config`, at any depth of mappings and lists, that `schema` does not declare.
 * Schemastery drops such keys silently, so a misspelled key would otherwise run with its default.
 * Parts of the config under an open schema (dict, any, or a schema of another kind) are not checked.
 */
export function findUnknownKey(schema: unknown, config: unknown, path = '$'): UnknownKey | undefined {
  if (!schema || (typeof schema !== 'object' && typeof schema !== 'function')) return undefined
  const schemas = alternatives(schema as SchemaLike)
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
  const keys = mappingKeys(schemas)
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
