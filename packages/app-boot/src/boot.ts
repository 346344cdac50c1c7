/// <reference types="cordisjs-plugin-loader" preserve="true" />
// (kept in the emitted declarations: `Fiber<Context>` in this API is generic only with the loader's augmentation)
import { dirname, resolve as resolvePath } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Context } from 'cordis'
import type { Fiber } from 'cordis'
import { Entry, Loader } from 'cordisjs-plugin-loader'
import { displayPath, loadAppFile, parseAppFile } from './app-file.ts'
import type { AppEntry } from './app-file.ts'
import { AppBootError } from './errors.ts'
import type { BootFailure } from './errors.ts'
import { findFailures, shownName } from './failures.ts'
import { oneLine } from 'dsh-core'
import { watchLateEntries } from './late-entries.ts'
import { Readiness } from 'dsh-core'
import type { PendingEntry } from 'dsh-core'
import { settleStartup, startingTasks, startupTimeoutMs, stillStarting, timeoutWarning, waitingForService } from './startup.ts'
import { absorbKnownRejections } from './rejections.ts'
import { resolveBarePlugin, resolvePluginPath } from './plugin-names.ts'
import type { LoadError } from './failures.ts'
import { StderrLog, logLevelNumber } from './stderr-log.ts'
import type { LogLevel } from './stderr-log.ts'

/** How the app became ready (what `ctx.readiness.ready` resolves to). */
type ReadyReport = Awaited<Readiness['ready']>

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
   * The app file's text, when the caller read it already (`readAppFile`): then `file` is not read again,
   * it only names the file in messages and anchors its relative paths. Booting twice from one read is how
   * a caller serves a file that can be read once (a FIFO).
   */
  text?: string
  /**
   * Turns a plugin package name into an importable specifier. Pass `(name) => import.meta.resolve(name)`
   * from the app's own module, so names resolve from the app's dependencies, not from the loader's folder.
   * It is asked only for names no package next to the app file (its folder's `node_modules`, up the tree) provides.
   */
  resolve: (name: string) => string
  /** The root context to boot into; a new one by default. */
  ctx?: Context
  /** stderr log level; defaults to `DSH_LOG_LEVEL` or `info`. At `debug`, failed entries also log their stacks. */
  logLevel?: LogLevel
  /**
   * Where each log line goes (with its newline); stderr by default. A REPL passes its own, so that a line
   * never lands over its prompt.
   */
  logWrite?: (line: string) => void
  /**
   * How long the app waits for its entries to start before it is ready anyway, in ms; defaults to
   * `DSH_STARTUP_TIMEOUT_MS` or 15000. Entries still starting then are named in one warning line and join later.
   */
  startupTimeoutMs?: number
  /**
   * The service a front door serves through, and its plugin's name: when the startup timeout passes before
   * that service is up, `ready` rejects with one line naming the entries still starting (and no warning
   * line before it), since nothing can be served without it.
   */
  frontDoor?: { service: string; plugin: string }
  /**
   * Boot to inspect, never to serve (`dsh-prompt`): `ctx.readiness.inspection` is true from before any entry starts,
   * so plugins skip the start-time checks of secrets they would need only to call a model (an HTTP adapter's API key).
   */
  inspection?: boolean
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
  /** How the app became ready: elapsed time, and the entries that were still starting at the timeout. */
  readiness: ReadyReport
  dispose(): Promise<void>
}

/** An app whose entries are all created and may still be starting. */
export interface StartingApp {
  ctx: Context
  /** The startup barrier (also `ctx.readiness`): `pending()` names what the app is still waiting for. */
  readiness: Readiness
  /** Resolves when the app is ready; rejects with one `AppBootError` (the app is then disposed) when an entry failed. */
  ready: Promise<BootedApp>
  /** Resolves with the service `name` once an entry provides it, or with undefined if the app got ready (or failed) without it. */
  whenProvided<K extends keyof Context & string>(name: K): Promise<Context[K] | undefined>
  dispose(): Promise<void>
}

/**
 * Boots an app file with the Cordis v4 loader and resolves when the app is ready: every entry has
 * started, or the startup timeout passed (entries still starting are named in one warning line and join
 * later). Any failure before that is one `AppBootError` naming the file, the entry and the underlying message.
 */
export async function boot(options: BootOptions): Promise<BootedApp> {
  return (await startApp(options)).ready
}

/**
 * Starts an app file: resolves once every entry is created (imported and plugged), while entries may
 * still be starting. For front doors that answer something (say ACP's `initialize`) before the app is
 * ready; `ready` settles as `boot()` would.
 */
export async function startApp(options: BootOptions): Promise<StartingApp> {
  const startedAt = Date.now()
  const level = logLevelNumber(options.logLevel ?? (process.env.DSH_LOG_LEVEL || 'info'))
  const timeoutMs = startupTimeoutMs(options.startupTimeoutMs)
  const shown = displayPath(options.file)
  const entries = options.text === undefined ? await loadAppFile(options.file) : parseAppFile(options.text, options.file)
  const specifiers = entries.map((entry) => specifierOf(entry, options.file, options.resolve, shown))

  const ctx = options.ctx ?? new Context()
  const log = new StderrLog(level, options.logWrite)
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
  let readinessFiber: ReturnType<typeof ctx.plugin>
  try {
    readinessFiber = ctx.plugin(Readiness, { inspection: options.inspection === true })
    loaderFiber = ctx.plugin(Loader, { baseUrl: pathToFileURL(dirname(resolvePath(options.file))).href + '/' })
  } catch (error) {
    for (const cleanup of cleanups.reverse()) cleanup()
    throw error
  }
  let disposing: Promise<void> | undefined
  const dispose = () => disposing ??= (async () => {
    try {
      await loaderFiber.dispose()
      await readinessFiber.dispose()
    } finally {
      for (const cleanup of cleanups.reverse()) cleanup()
    }
  })()

  let loader: Loader
  let readiness: Readiness
  try {
    await readinessFiber
    await loaderFiber
    readiness = ctx.get('readiness', false)!
    loader = ctx.get('loader', false)!
    for (const [index, entry] of entries.entries()) {
      const options = { id: entry.id, name: specifiers[index], config: entry.config, disabled: entry.disabled || null }
      if (!entry.disabled) readiness.track({ id: entry.id, name: shownName(entry.name) }, true)
      try {
        await loader.create(options)
      } catch (error) {
        loadErrors.set(entry.id, { code: 'PLUGIN_FAILED', error })
      }
    }
  } catch (error) {
    booting = false
    log.release(new Set())
    await dispose()
    throw error
  }

  // keeps `readiness.pending()` live while the app starts, for front doors that show what they wait for
  const refresh = () => {
    const tasks = startingTasks(ctx, loader, entries)
    const waiting = new Set(waitingForService(loader, entries))
    for (const entry of readiness.pending()) {
      if (!tasks.has(entry.id) && !waiting.has(entry.id)) readiness.track(entry, false)
    }
  }
  const stopRefresh = ctx.on('internal/status', refresh)
  refresh()

  const ready = (async (): Promise<BootedApp> => {
    let failures
    let late: PendingEntry[]
    try {
      const starting = await settleStartup(ctx, loader, entries, startedAt + timeoutMs)
      stopRefresh()
      const startingSet = new Set(starting)
      for (const entry of entries) {
        if (!startingSet.has(entry.id)) readiness.track({ id: entry.id, name: shownName(entry.name) }, false)
      }
      late = readiness.pending()
      failures = await findFailures(ctx, loader, entries, loadErrors, startingSet)
      booting = false
      log.release(new Set(failures.map((failure) => failure.cause)))
    } catch (error) {
      stopRefresh()
      booting = false
      log.release(new Set())
      await dispose()
      throw error
    }
    if (failures.length) {
      await dispose()
      const message = failures.map((failure) => `${shown}: ${failure.message}`).join('\n')
      throw new AppBootError(failures[0].code, message, failures)
    }
    if (late.length && options.frontDoor && ctx.get(options.frontDoor.service, false) === undefined) {
      await dispose()
      throw new AppBootError('MISSING_SERVICE', `${shown}: ${stillStarting(timeoutMs, late, options.frontDoor.plugin)}`)
    }
    if (late.length) {
      ctx.logger('app-boot').warn(timeoutWarning(timeoutMs, late))
      cleanups.push(watchLateEntries(ctx, loader, entries, late, readiness, startedAt))
    }
    const report: ReadyReport = { elapsedMs: Date.now() - startedAt, timedOut: late.length > 0, pending: late }
    readiness.declareReady(report)
    return {
      ctx,
      entries: entries.map((entry, index) => ({ ...entry, specifier: specifiers[index], fiber: loader.store[entry.id]?.fiber })),
      readiness: report,
      dispose,
    }
  })()
  // callers may look at `whenProvided` first; a failed boot must not count as an unhandled rejection meanwhile
  ready.catch(() => {})

  const whenProvided = <K extends keyof Context & string>(name: K): Promise<Context[K] | undefined> => {
    const current = ctx.get(name, false)
    if (current !== undefined) return Promise.resolve(current)
    return new Promise((resolve) => {
      const stop = ctx.on('internal/service', (provided) => {
        if (provided !== name || ctx.get(name, false) === undefined) return
        stop()
        resolve(ctx.get(name, false))
      })
      ready.then(() => ctx.get(name, false), () => undefined).then((value) => {
        stop()
        resolve(value)
      })
    })
  }

  return { ctx, readiness, ready, whenProvided, dispose }
}

/** What the loader imports for an entry: a bare name from the app file's folder first, then the app's dependencies. */
function specifierOf(entry: AppEntry, file: string, resolve: (name: string) => string, shown: string): string {
  if (entry.disabled || entry.name.startsWith('cordis:')) return entry.name
  try {
    return entry.name.startsWith('file:') ? resolvePluginPath(entry.name) : resolveBarePlugin(entry.name, file, resolve)
  } catch (error) {
    const failure: BootFailure = {
      code: 'UNKNOWN_PLUGIN',
      entry: entry.id,
      message: `entry "${entry.id}" (${entry.name}): cannot resolve plugin: ${oneLine(error instanceof Error ? error.message : String(error))}`,
      cause: error,
    }
    throw new AppBootError(failure.code, `${shown}: ${failure.message}`, [failure])
  }
}
