import { CodedError, compareCodeUnits, messageOf, oneLine } from 'dsh-core'
import type { SessionEvent } from './events.ts'
import type { SessionStoreApi } from './store-api.ts'

/** One stored session as a listing shows it (`--sessions`, ACP `session/list`). */
export interface SessionSummary {
  id: string
  /** Time of the session's last event (ISO), or undefined for a session without events. */
  lastTime: string | undefined
  /** The first user message, or undefined when the session has no turn. */
  firstPrompt: string | undefined
  turns: number
  /** True when another process is writing the session (the store refused it with BUSY): not read. */
  busy?: boolean
  /** Why the session cannot be opened (a corrupt log, a file that is not a regular one), in one line. */
  broken?: string
  /** The first event of a type listed in `summarizeSessions`'s `keep`, by type (say, the front door that created it). */
  kept?: Record<string, SessionEvent>
}

// every store keeps one writer per session and refuses to open a session another process writes, with its
// package's error (a CodedError) of code BUSY: recognised by class and code, not by the shape of an object
const isBusy = (error: unknown) => error instanceof CodedError && error.code === 'BUSY'

/**
 * Reads every stored session and summarizes it, most recent first (ties in id order); a session another
 * process is writing is listed as busy, and one that cannot be read as broken with the reason, both last,
 * without contents: one bad session never hides the others. Sessions this process did not have open are
 * closed again. `keep` names event types whose first occurrence the summary carries.
 */
export async function summarizeSessions(store: SessionStoreApi, keep: readonly string[] = []): Promise<SessionSummary[]> {
  const summaries: SessionSummary[] = []
  for (const id of await store.list()) {
    const open = store.get(id) !== undefined
    let session
    try {
      session = await store.open(id)
    } catch (error) {
      const summary: SessionSummary = { id, lastTime: undefined, firstPrompt: undefined, turns: 0 }
      if (isBusy(error)) summary.busy = true
      else summary.broken = oneLine(messageOf(error))
      summaries.push(summary)
      continue
    }
    const events = session.events()
    const first = events.find((event) => event.type === 'user/message')
    const kept: Record<string, SessionEvent> = {}
    for (const type of keep) {
      const event = events.find((item) => item.type === type)
      if (event) kept[type] = event
    }
    summaries.push({
      id,
      lastTime: events.at(-1)?.time,
      firstPrompt: first ? (first.data as { text: string }).text : undefined,
      turns: events.filter((event) => event.type === 'turn/start').length,
      ...keep.length && { kept },
    })
    // listing must not keep logs open that nobody else uses
    if (!open) await store.close(id)
  }
  // ISO times sort as strings; a session without events goes last
  return summaries.sort((a, b) => compareCodeUnits(b.lastTime ?? '', a.lastTime ?? '') || compareCodeUnits(a.id, b.id))
}
