import { compareCodeUnits, messageOf, oneLine } from 'dsh-core'
import type { SessionStoreApi } from 'dsh-session'

/** One stored session as `--sessions` lists it. */
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
}

// every store keeps one writer per session and refuses to open a session another process writes
const isBusy = (error: unknown) => (error as { code?: unknown } | undefined)?.code === 'BUSY'

/**
 * Reads every stored session and summarizes it, most recent first (ties in id order); a session another
 * process is writing is listed as busy, and one that cannot be read as broken with the reason, both last,
 * without contents. One bad session never hides the others.
 */
export async function summarizeSessions(store: SessionStoreApi): Promise<SessionSummary[]> {
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
    summaries.push({
      id,
      lastTime: events.at(-1)?.time,
      firstPrompt: first ? (first.data as { text: string }).text : undefined,
      turns: events.filter((event) => event.type === 'turn/start').length,
    })
    // listing must not keep logs open that nobody else uses
    if (!open) await store.close(id)
  }
  // ISO times sort as strings; a session without events goes last
  return summaries.sort((a, b) => compareCodeUnits(b.lastTime ?? '', a.lastTime ?? '') || compareCodeUnits(a.id, b.id))
}

/** The `--sessions` text: one line per session (id, last time, turns, first prompt), or a line saying there are none. */
export function formatSessions(summaries: readonly SessionSummary[], where: string): string {
  if (!summaries.length) return `no sessions in ${where}\n`
  return summaries.map((summary) => {
    if (summary.busy) return `${summary.id}  in use: another process is writing it\n`
    if (summary.broken !== undefined) return `${summary.id}  broken: ${summary.broken}\n`
    const prompt = summary.firstPrompt === undefined ? '(no prompt)' : JSON.stringify(oneLine(summary.firstPrompt, 60))
    const turns = `${summary.turns} ${summary.turns === 1 ? 'turn' : 'turns'}`
    return `${summary.id}  ${summary.lastTime ?? '-'}  ${turns}  ${prompt}\n`
  }).join('')
}
