import { BootError } from './errors.ts'

/** What `runMain` can stop on a signal: a booted app, or anything else with `dispose()`. */
export interface Stoppable {
  dispose(): unknown
}

/**
 * Runs a bin's `main()`. A `BootError` prints its message alone on stderr and exits 1; any other error
 * prints its stack and exits 1. When `main()` returns something with `dispose()`, SIGINT and SIGTERM
 * dispose it (so plugins flush) and exit 0; a second signal exits 1 at once.
 */
export function runMain(main: () => Promise<Stoppable | void> | Stoppable | void): void {
  const fail = (error: unknown) => {
    const text = error instanceof BootError ? error.message : error instanceof Error ? error.stack ?? error.message : String(error)
    process.stderr.write(`${text}\n`)
    process.exit(1)
  }
  Promise.resolve().then(main).then((app) => {
    if (!app || typeof app.dispose !== 'function') return
    let stopping = false
    const stop = () => {
      if (stopping) process.exit(1)
      stopping = true
      Promise.resolve().then(() => app.dispose()).then(() => process.exit(0), fail)
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  }, fail)
}
