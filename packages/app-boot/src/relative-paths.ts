import { resolve as resolvePath } from 'node:path'
import { pathToFileURL } from 'node:url'

/** True for strings that start with `./` or `../`: the only strings app files treat as relative paths. */
export function isRelativePath(value: string): boolean {
  return value.startsWith('./') || value.startsWith('../')
}

/**
 * Returns a copy of `value` in which every string that starts with `./` or `../`, at any depth of
 * mappings and lists, is an absolute path resolved against `baseDir`. Other values are kept as they are.
 */
export function resolveConfigPaths<T>(value: T, baseDir: string): T {
  if (typeof value === 'string') {
    return (isRelativePath(value) ? resolvePath(baseDir, value) : value) as T
  }
  if (Array.isArray(value)) return value.map((item) => resolveConfigPaths(item, baseDir)) as T
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    // fromEntries defines own properties: a "__proto__" key stays data and cannot swap the prototype
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolveConfigPaths(item, baseDir)])) as T
  }
  return value
}

/** A relative plugin name becomes a `file:` URL the loader can import; any other name is kept. */
export function resolvePluginName(name: string, baseDir: string): string {
  return isRelativePath(name) ? pathToFileURL(resolvePath(baseDir, name)).href : name
}
