import { declaredKeys, schemaAlternatives, type SchemaLike } from 'dsh-core'

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
