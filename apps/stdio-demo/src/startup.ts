import type { startApp } from 'dsh-app-boot'
import type { PendingEntry } from 'dsh-core'

/** An app whose entries are all created, as `startApp` resolves it. */
type StartingApp = Awaited<ReturnType<typeof startApp>>

function named(entries: readonly PendingEntry[]): string {
  return entries.map((entry) => `${entry.id} (${entry.name})`).join(', ')
}

/**
 * The REPL's first lines: the welcome, then — when entries are still starting — what it is connecting
 * to, and a ready line once the app is ready (naming what it serves without, if the startup timeout
 * passed). Resolves when the app is ready; rejects with the boot's error when it failed.
 */
export async function showStartup(output: NodeJS.WritableStream, welcome: string, app: StartingApp, stopped: () => boolean = () => false): Promise<void> {
  output.write(`${welcome}\n`)
  const pending = app.readiness.pending()
  if (pending.length) output.write(`connecting to ${named(pending)} …\n`)
  const { readiness } = await app.ready
  // stopped by Ctrl-C while it started: say nothing more
  if (!pending.length || stopped()) return
  const seconds = (readiness.elapsedMs / 1000).toFixed(1)
  output.write(readiness.timedOut
    ? `ready after ${seconds} s without ${named(readiness.pending)}: still starting, tools join when up\n`
    : `ready (${seconds} s)\n`)
}
