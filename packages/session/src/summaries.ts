import { CodedError, compareCodeUnits, messageOf, oneLine } from 'dsh-core'
import type { SessionEvent } from './events.ts'
import type { SessionFleet, SessionHolder } from './fleet.ts'
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
  /** The process writing the session, as a fleet store names it (with `busy`, or this process's own). */
  holder?: SessionHolder
  /** Why the session cannot be opened (a corrupt log, a file that is not a regular one), in one line. */
  broken?: string
  /** The first event of a type listed in `summarizeSessions`'s `keep`, by type (say, the front door that created it). */
  kept?: Record<string, SessionEvent>
  /** The session this one was forked from, as the `fork/parent` event that opens its log says; absent for a root session. */
  parent?: ForkParent
}

/** A child session's link to its parent: the parent's id, the fork's mode and its description. */
export interface ForkParent {
  id: string
  mode: string
  description: string
}

/** The event type that opens a child session's log. */
const PARENT_EVENT = 'fork/parent'

// every store keeps one writer per session and refuses to open a session another process writes
const isBusy = (error: unknown) => CodedError.is(error, 'BUSY')

/**
 * Reads every stored session and summarizes it, most recent first (ties in id order); a session another
 * process is writing is listed as busy, and one that cannot be read as broken with the reason, both last,
 * without contents: one bad session never hides the others. Sessions this process did not have open are
 * closed again. `keep` names event types whose first occurrence the summary carries.
 */
export async function summarizeSessions(store: SessionStoreApi, keep: readonly string[] = []): Promise<SessionSummary[]> {
  if (store.fleet) return fleetSummaries(store, store.fleet, keep)
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
    const parent = parentOf(events[0]?.type, events[0]?.data)
    const kept: Record<string, SessionEvent> = {}
    for (const type of keep) {
      const event = events.find((item) => item.type === type)
      if (event) kept[type] = event
    }
    summaries.push({
      id,
      lastTime: events.at(-1)?.time,
      firstPrompt: first?.data.text,
      turns: events.filter((event) => event.type === 'turn/start').length,
      ...keep.length && { kept },
      ...parent && { parent },
    })
    // listing must not keep logs open that nobody else uses
    if (!open) await store.close(id)
  }
  return inTreeOrder(summaries)
}

/**
 * The summaries of a fleet store, read page by page without taking any lock: a session another process holds
 * is listed with its contents and its holder (`busy`), not hidden.
 */
async function fleetSummaries(store: SessionStoreApi, fleet: SessionFleet, keep: readonly string[]): Promise<SessionSummary[]> {
  const summaries: SessionSummary[] = []
  let after
  do {
    const page = await fleet.page({ limit: 1000, after, keep: keep.includes(PARENT_EVENT) ? keep : [...keep, PARENT_EVENT], turns: true })
    for (const item of page.sessions) {
      const kept: Record<string, SessionEvent> = {}
      for (const type of keep) if (type in item.kept) kept[type] = { type, data: item.kept[type] } as SessionEvent
      const summary: SessionSummary = { id: item.id, lastTime: item.lastTime, firstPrompt: item.firstPrompt, turns: item.turns ?? 0 }
      if (keep.length) summary.kept = kept
      if (item.holder) summary.holder = item.holder
      if (item.holder && store.get(item.id) === undefined) summary.busy = true
      const parent = parentOf(PARENT_EVENT in item.kept ? PARENT_EVENT : undefined, item.kept[PARENT_EVENT])
      if (parent) summary.parent = parent
      summaries.push(summary)
    }
    after = page.next
  } while (after)
  return inTreeOrder(summaries)
}

/** The parent link of a log whose first event is `type` with `data`, when that is a `fork/parent` event. */
function parentOf(type: string | undefined, data: unknown): ForkParent | undefined {
  if (type !== PARENT_EVENT || typeof data !== 'object' || data === null) return undefined
  const { parent, mode, description } = data as Record<string, unknown>
  if (typeof parent !== 'string') return undefined
  return { id: parent, mode: typeof mode === 'string' ? mode : '', description: typeof description === 'string' ? description : '' }
}

/**
 * The listing order: sessions without a listed parent most recent first (ISO times sort as strings; ties by id;
 * a session without events last), each followed by its children in the order they were forked (`<parent>~<n>`
 * by n), their own children under them.
 */
export function inTreeOrder(summaries: SessionSummary[]): SessionSummary[] {
  const listed = new Set(summaries.map((summary) => summary.id))
  const children = new Map<string, SessionSummary[]>()
  const roots: SessionSummary[] = []
  for (const summary of summaries) {
    const parent = summary.parent?.id
    // a child whose parent is gone (deleted, or its own parent link cycles) is listed as a root
    if (parent === undefined || !listed.has(parent) || parent === summary.id) roots.push(summary)
    else children.set(parent, [...children.get(parent) ?? [], summary])
  }
  roots.sort((a, b) => compareCodeUnits(b.lastTime ?? '', a.lastTime ?? '') || compareCodeUnits(a.id, b.id))
  const ordered: SessionSummary[] = []
  const seen = new Set<SessionSummary>()
  const visit = (summary: SessionSummary) => {
    if (seen.has(summary)) return
    seen.add(summary)
    ordered.push(summary)
    for (const child of (children.get(summary.id) ?? []).sort(byForkOrder)) visit(child)
  }
  roots.forEach(visit)
  // children in a cycle of parent links reach no root: listed last rather than lost
  for (const summary of summaries) visit(summary)
  return ordered
}

/** Children of one parent in the order they were forked: by the `n` of `<parent>~<n>`, else by id. */
function byForkOrder(a: SessionSummary, b: SessionSummary): number {
  return forkNumber(a) - forkNumber(b) || compareCodeUnits(a.id, b.id)
}

function forkNumber(summary: SessionSummary): number {
  const prefix = `${summary.parent!.id}~`
  const n = summary.id.startsWith(prefix) ? Number(summary.id.slice(prefix.length)) : Number.NaN
  return Number.isSafeInteger(n) ? n : Number.MAX_SAFE_INTEGER
}
