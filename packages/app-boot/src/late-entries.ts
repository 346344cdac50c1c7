import type { Context } from 'cordis'
import type { Loader } from 'cordisjs-plugin-loader'
import type { AppEntry } from './app-file.ts'
import { describeError } from './failures.ts'
import type { PendingEntry, Readiness } from 'dsh-core'
import { startingTasks, waitingForService } from './startup.ts'

const FAILED = 3

/**
 * Follows the entries still starting when the app became ready: once one is up, one info line says
 * so (its tools joined as an ordinary mid-session addition); once one fails, one error line names it
 * (the app keeps serving without it). Returns the disposer of the watch.
 */
export function watchLateEntries(
  ctx: Context,
  loader: Loader,
  entries: readonly AppEntry[],
  late: readonly PendingEntry[],
  readiness: Readiness,
  startedAt: number,
): () => void {
  const logger = ctx.logger('app-boot')
  const tracked = new Map(late.map((entry) => [entry.id, entry]))
  const check = async () => {
    const tasks = startingTasks(ctx, loader, entries)
    const waiting = new Set(waitingForService(loader, entries))
    for (const [id, entry] of [...tracked]) {
      if (tasks.has(id) || waiting.has(id)) continue
      tracked.delete(id)
      readiness.track(entry, false)
      const fiber = loader.store[id]?.fiber
      // the app is being disposed: a start cut short is no news
      if (!fiber || fiber.uid === null) continue
      const seconds = ((Date.now() - startedAt) / 1000).toFixed(1)
      if (fiber?.state === FAILED) {
        const error = await fiber.await().then(() => undefined, (reason: unknown) => reason)
        logger.error('entry "%s" (%s) %s after the app was ready; serving without it', id, entry.name, describeError(error).text)
      } else {
        logger.info('entry "%s" (%s) started %s s after the boot began, after the app was ready; its tools joined mid-session', id, entry.name, seconds)
      }
    }
    if (!tracked.size) stop()
  }
  const stop = ctx.on('internal/status', () => { check().catch((error) => logger.error(error)) })
  // an entry may have settled between the timeout and this watch
  queueMicrotask(() => { check().catch((error) => logger.error(error)) })
  return stop
}
