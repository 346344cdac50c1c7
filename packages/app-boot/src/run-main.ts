import { AppBootError } from './errors.ts'

/** What `runMain` can stop on a signal: a booted app, or anything else with `dispose()`. */
export interface Stoppable {
  dispose(): unknown
}

/**
 * Runs a bin's `main()`. A `AppBootError` prints its message alone on stderr and exits 1; any other error
 * prints its stack and exits 1. SIGINT and SIGTERM dispose what `main()` returned (so plugins flush) and
 * exit 0; a signal during boot stops the app as soon as it is up, or at once once `main` handed it over
 * early with `stopWith(app)` (say a starting app); a second signal exits 1 at once.
 */
export function runMain(main: (stopWith: (app: Stoppable) => void) => Promise<Stoppable | void> | Stoppable | void): void {
  const fail = (error: unknown) => {
    const text = AppBootError.is(error) ? error.message : error instanceof Error ? error.stack ?? error.message : String(error)
    process.stderr.write(`${text}\n`)
    process.exit(1)
  }
  let app: Stoppable | void | undefined
  let stopping = false
  const stop = () => {
    if (!app) return
    Promise.resolve().then(() => app!.dispose()).then(() => process.exit(0), fail)
  }
  const onSignal = () => {
    if (stopping) process.exit(1)
    stopping = true
    stop()
  }
  // installed before main() runs, so a signal that arrives as boot finishes still flushes the app
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  const stopWith = (early: Stoppable) => {
    app = early
    if (stopping) stop()
  }
  Promise.resolve().then(() => main(stopWith)).then((result) => {
    app = result && typeof result.dispose === 'function' ? result : undefined
    if (stopping) {
      if (app) stop()
      else process.exit(0)
    } else if (!app) {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
  }, (error) => {
    // stopping a starting app fails its startup; the signal's own exit is the one that counts
    if (stopping && app) return
    fail(error)
  })
}
