const NOT_FOUND = new Set(['MODULE_NOT_FOUND', 'ERR_MODULE_NOT_FOUND'])

/**
 * A plugin resolver for an app file: `boot()` looks next to the file first (its folder's `node_modules`, up
 * the tree, as the app's bin does); a name not found there resolves from this package's dependencies.
 */
export function resolverFor(file: string): (name: string) => string {
  return (name) => {
    try {
      return import.meta.resolve(name)
    } catch (error) {
      if (!NOT_FOUND.has((error as NodeJS.ErrnoException).code ?? '')) throw error
      throw new Error(`cannot find package "${name}" next to ${file} (the app file) or among dsh-prompt's dependencies`)
    }
  }
}
