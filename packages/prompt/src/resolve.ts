import { createRequire } from 'node:module'
import { dirname, join, resolve as resolvePath } from 'node:path'
import { pathToFileURL } from 'node:url'

const NOT_FOUND = new Set(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'])

/**
 * A plugin resolver for an app file: names resolve from the file's folder first (so an app's own
 * package and its dependencies are found, as the app's bin would find them), then from this package.
 */
export function resolverFor(file: string): (name: string) => string {
  const folder = dirname(resolvePath(file))
  const local = createRequire(join(folder, 'cordis.yml'))
  return (name) => {
    try {
      return pathToFileURL(local.resolve(name)).href
    } catch {
      try {
        return import.meta.resolve(name)
      } catch (error) {
        if (!NOT_FOUND.has((error as NodeJS.ErrnoException).code ?? '')) throw error
        throw new Error(`cannot find package "${name}" from ${folder} (the app file's folder) or from dsh-prompt's dependencies`)
      }
    }
  }
}
