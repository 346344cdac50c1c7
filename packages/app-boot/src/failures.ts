import type { Context, Fiber } from 'cordis'
import type { Loader } from 'cordisjs-plugin-loader'
import type { AppEntry } from './app-file.ts'
import type { AppBootErrorCode, BootFailure } from './errors.ts'
import { findUnknownKey, oneLine } from 'dsh-core'
import Schema from 'schemastery'

// FiberState is a const enum in cordis's types; isolatedModules forbids reading it across packages.
const PENDING = 0

/** cordis wraps schema issues as "invalid config:\n  - <issue> (at <path>)"; keep the issues only. */
export function describeError(error: unknown): { code: AppBootErrorCode; text: string } {
  if (Schema.ValidationError.is(error)) {
    const issues = error.message.split('\n').slice(1).map((line) => {
      const issue = line.trim().replace(/^- /, '')
      // schemastery issues already start with their "$.path"; the suffix would repeat it
      return issue.startsWith('$') ? issue.replace(/ \(at [^()]*\)$/, '') : issue
    })
    return { code: 'INVALID_CONFIG', text: `invalid config: ${issues.join('; ')}` }
  }
  const message = error instanceof Error ? error.message : String(error)
  return { code: 'PLUGIN_FAILED', text: `failed to start: ${oneLine(message)}` }
}

/** Why the loader could not even plug an entry: its module failed to import, or exported no plugin. */
export interface LoadError {
  code: AppBootErrorCode
  error: unknown
}

async function fiberError(fiber: Fiber<Context>): Promise<unknown> {
  try {
    await fiber.await()
    return undefined
  } catch (error) {
    return error ?? new Error('unknown failure')
  }
}

/** A plugin name as messages show it: a `file:` URL as its path. */
export function shownName(name: string): string {
  return name.startsWith('file:') ? new URL(name).pathname : name
}

/**
 * After `loader.await()`: every app entry that is not running, and every plugin nested under an entry
 * that failed on its own. The loader records these nowhere but in fiber state and `internal/error`.
 */
export async function findFailures(
  ctx: Context,
  loader: Loader,
  entries: readonly AppEntry[],
  loadErrors: ReadonlyMap<string, LoadError>,
  starting: ReadonlySet<string> = new Set(),
): Promise<BootFailure[]> {
  const ids = new Set(entries.filter((entry) => !starting.has(entry.id)).map((entry) => entry.id))
  // the loader keeps a wrapper of each entry fiber (cordis adds `then`); the registry has the fiber itself
  const entryFibers = new Set(entries.map((entry) => loader.store[entry.id]?.fiber?.uid).filter((uid) => uid != null))

  // failures of plugins that an entry plugged itself, keyed by the error object they failed with
  const nested = new Map<unknown, { entry: string; plugin: string }>()
  for (const runtime of [...ctx.registry.values()]) {
    for (const fiber of [...runtime.fibers]) {
      if (entryFibers.has(fiber.uid)) continue
      const entry = loader.locate(fiber)
      if (entry === undefined || !ids.has(entry)) continue
      const error = await fiberError(fiber)
      if (error !== undefined && !nested.has(error)) nested.set(error, { entry, plugin: fiber.name })
    }
  }

  const failures: BootFailure[] = []
  const add = (code: AppBootErrorCode, entry: AppEntry, text: string, cause?: unknown) => {
    failures.push({ code, entry: entry.id, message: `entry "${entry.id}" (${shownName(entry.name)}): ${text}`, cause })
  }
  for (const entry of entries) {
    // still starting at the startup timeout: it is not a boot failure (yet), and awaiting it would block
    if (entry.disabled || starting.has(entry.id)) continue
    const fiber = loader.store[entry.id]?.fiber
    const loadError = loadErrors.get(entry.id)
    if (loadError) {
      const { code, error } = loadError
      const message = oneLine(error instanceof Error ? error.message : String(error))
      add(code, entry, `cannot load plugin: ${message.replace(/ imported from \S*(?:@cordisjs[/+]plugin-loader|cordisjs-plugin-loader)\S*$/, '')}`, error)
      continue
    }
    if (!fiber) {
      add('PLUGIN_FAILED', entry, 'the loader did not start this entry')
      continue
    }
    const error = await fiberError(fiber)
    const unknownKey = findUnknownKey(fiber.runtime?.Config, entry.config)
    // a misspelled key is usually why the plugin then failed (a required value seemed missing)
    if (unknownKey) {
      nested.delete(error)
      add('INVALID_CONFIG', entry, `invalid config: unknown key ${unknownKey.path}; valid keys: ${unknownKey.valid.join(', ')}`, error)
    } else if (error !== undefined) {
      const { code, text } = describeError(error)
      const inner = nested.get(error)
      nested.delete(error)
      add(code, entry, inner ? `plugin "${inner.plugin}": ${text}` : text, error)
    } else if (fiber.state === PENDING) {
      const missing = Object.keys(fiber.inject).filter((name) => fiber.ctx.get(name) === undefined)
      const list = missing.map((name) => `"${name}"`).join(', ') || '(unknown)'
      add('MISSING_SERVICE', entry, `never started: no entry provides the service(s) it injects: ${list}`)
    }
  }
  for (const [error, where] of nested) {
    const entry = entries.find((item) => item.id === where.entry)!
    const { code, text } = describeError(error)
    add(code, entry, `plugin "${where.plugin}": ${text}`, error)
  }
  const position = new Map(entries.map((entry, index) => [entry.id, index]))
  // An entry waiting for a service is usually waiting for the entry that failed to provide it; when
  // something failed for a reason of its own, that reason is the one line worth printing.
  const causes = failures.filter((failure) => failure.code !== 'MISSING_SERVICE')
  return (causes.length ? causes : failures).sort((a, b) => position.get(a.entry)! - position.get(b.entry)!)
}
