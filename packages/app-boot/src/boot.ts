/// <reference types="@cordisjs/plugin-loader" preserve="true" />
// (kept in the emitted declarations: `Fiber<Context>` in this API is generic only with the loader's augmentation)
import { dirname, resolve as resolvePath } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context } from 'cordis'
import type { Fiber } from 'cordis'
import { Entry, Loader } from '@cordisjs/plugin-loader'
import { displayPath, loadAppFile } from './app-file.ts'
import type { AppEntry } from './app-file.ts'
import { BootError } from './errors.ts'
import type { BootFailure } from './errors.ts'
import { findFailures, oneLine } from './failures.ts'
import { absorbKnownRejections } from './rejections.ts'
import type { LoadError } from './failures.ts'
import { StderrLog, logLevelNumber } from './stderr-log.ts'
import type { LogLevel } from './stderr-log.ts'

declare module 'cordis' {
  interface Events {
    /** Emitted (sync) by the loader, with the entry's context as `this`, when a plugin cannot be imported. */
    'internal/error'(this: Context, error: unknown): void
  }
}

export interface BootOptions {
  /** The app file: a YAML list of loader entries. */
  file: string
  /**
   * Turns a plugin package name into an importable specifier. Pass `(name) => import.meta.resolve(name)`
   * from the app's own module, so names resolve from the app's dependencies, not from the loader's folder.
   */
  resolve: (name: string) => string
  /** The root context to boot into; a new one by default. */
  ctx?: Context
  /** stderr log level; defaults to `DSH_LOG_LEVEL` or `info`. At `debug`, failed entries also log their stacks. */
  logLevel?: LogLevel
}

/** An app entry as booted: the specifier the loader imported and the plugin's fiber, if it got one. */
export interface BootedEntry extends AppEntry {
  specifier: string
  fiber: Fiber<Context> | undefined
}

/** A running app. `dispose()` disposes every plugin (awaiting their dispose hooks) and the stderr log. */
export interface BootedApp {
  ctx: Context
  entries: BootedEntry[]
  dispose(): Promise<void>
}

/**
 * Boots an app file with the Cordis v4 loader: creates every entry, waits for all of them, and turns any
 * failure into one `BootError` naming the file, the entry and the underlying message.
 */
export async function boot(options: BootOptions): Promise<BootedApp> {
  const level = logLevelNumber(options.logLevel ?? (process.env.DSH_LOG_LEVEL || 'info'))
  const shown = displayPath(options.file)
  const entries = await loadAppFile(options.file)
  const specifiers = entries.map((entry) => specifierOf(entry, options.resolve, shown))

  const ctx = options.ctx ?? new Context()
  const log = new StderrLog(level)
  // every error a plugin fiber failed with is logged once at the error level; remember them all
  const failedWith = new Set<unknown>()
  const cleanups: (() => unknown)[] = [
    absorbKnownRejections((reason) => failedWith.has(reason)),
    ctx.logger.exporter({ levels: { default: 0 }, export: (message) => failedWith.add(message.args[0]) }),
    ctx.logger.exporter(log.exporter),
  ]
  const loadErrors = new Map<string, LoadError>()
  let booting = true
  cleanups.push(ctx.on('internal/error', function (error) {
    const entry: Entry | undefined = (this as any)[Entry.key]
    if (booting && entry) {
      loadErrors.set(entry.options.id, { code: 'UNKNOWN_PLUGIN', error })
      ctx.logger('loader').debug(error)
    } else {
      ctx.logger('loader').error(error)
    }
  }))

  let loaderFiber: ReturnType<typeof ctx.plugin>
  try {
    loaderFiber = ctx.plugin(Loader, { baseUrl: pathToFileURL(dirname(resolvePath(options.file))).href + '/' })
  } catch (error) {
    for (const cleanup of cleanups.reverse()) cleanup()
    throw error
  }
  let disposing: Promise<void> | undefined
  const dispose = () => disposing ??= (async () => {
    try {
      await loaderFiber.dispose()
    } finally {
      for (const cleanup of cleanups.reverse()) cleanup()
    }
  })()

  let failures
  try {
    await loaderFiber
    const loader = ctx.get('loader', false)!
    for (const [index, entry] of entries.entries()) {
      const options = { id: entry.id, name: specifiers[index], config: entry.config, disabled: entry.disabled || null }
      try {
        await loader.create(options)
      } catch (error) {
        loadErrors.set(entry.id, { code: 'PLUGIN_FAILED', error })
      }
    }
    await loader.await()
    failures = await findFailures(ctx, loader, entries, loadErrors)
    booting = false
    log.release(new Set(failures.map((failure) => failure.cause)))
  } catch (error) {
    booting = false
    log.release(new Set())
    await dispose()
    throw error
  }
  if (failures.length) {
    await dispose()
    const message = failures.map((failure) => `${shown}: ${failure.message}`).join('\n')
    throw new BootError(failures[0].code, message, failures)
  }

  const loader = ctx.get('loader', false)!
  return {
    ctx,
    entries: entries.map((entry, index) => ({ ...entry, specifier: specifiers[index], fiber: loader.store[entry.id]?.fiber })),
    dispose,
  }
}

function specifierOf(entry: AppEntry, resolve: (name: string) => string, shown: string): string {
  if (entry.disabled || entry.name.startsWith('file:') || entry.name.startsWith('cordis:')) return entry.name
  try {
    return resolve(entry.name)
  } catch (error) {
    const failure: BootFailure = {
      code: 'UNKNOWN_PLUGIN',
      entry: entry.id,
      message: `entry "${entry.id}" (${entry.name}): cannot resolve plugin: ${oneLine(error instanceof Error ? error.message : String(error))}`,
      cause: error,
    }
    throw new BootError(failure.code, `${shown}: ${failure.message}`, [failure])
  }
}
