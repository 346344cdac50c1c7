import type { ListSessionsRequest, ListSessionsResponse, SessionInfo } from '@agentclientprotocol/sdk'
import { compareCodeUnits } from 'dsh-core'
import type { SessionSummary } from 'dsh-session'
import { AcpDemoError } from './errors.ts'

declare module 'dsh-session' {
  interface SessionEventMap {
    /**
     * Logged by `session/new` before it answers: the session exists from then on, so `session/list` shows it
     * and `session/load` opens it even when it never got a prompt. `cwd` is the client's working directory.
     */
    'acp/session': { cwd: string }
  }
}

/** The event type that records an ACP session's creation. */
export const CREATED_EVENT = 'acp/session'

/** Sessions per `session/list` page when the app file does not say. */
export const DEFAULT_PAGE_SIZE = 50

const TITLE_LENGTH = 80

/** The first prompt on one line, cut to 80 characters: what an editor's session list shows. */
export function sessionTitle(prompt: string): string {
  const flat = prompt.replace(/\s+/g, ' ').trim()
  return flat.length > TITLE_LENGTH ? `${flat.slice(0, TITLE_LENGTH - 1)}…` : flat
}

// a cursor names the last session of the page it ends, by its place in the listing's order
const encodeCursor = (summary: SessionSummary) => Buffer.from(JSON.stringify([summary.lastTime ?? '', summary.id])).toString('base64url')

function decodeCursor(cursor: string): [string, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
    if (Array.isArray(value) && value.length === 2 && value.every((part) => typeof part === 'string')) return value as [string, string]
  } catch {}
  throw new AcpDemoError('INVALID_PARAMS', `session/list: cursor ${JSON.stringify(cursor)} is not one this agent gave out; pass a nextCursor from an earlier session/list answer, or none for the first page`, { cursor })
}

/** Newest first, ties by id: the order summaries come in, and the one cursors are read against. */
const order = (time: string, id: string, summary: SessionSummary) => compareCodeUnits(time, summary.lastTime ?? '') || compareCodeUnits(summary.id, id)

/**
 * One page of `session/list`: each session's id, its working directory (the client's at `session/new`, else
 * `fallbackCwd`), its first prompt as the title and the time of its last event, newest first; `nextCursor`
 * when more follow. A `cwd` filter keeps the sessions of that directory.
 */
export function listPage(summaries: readonly SessionSummary[], params: ListSessionsRequest, fallbackCwd: string, pageSize: number): ListSessionsResponse {
  const cwdOf = (summary: SessionSummary) => (summary.kept?.[CREATED_EVENT]?.data as { cwd?: string } | undefined)?.cwd ?? fallbackCwd
  let rest = summaries.filter((summary) => !summary.busy && summary.broken === undefined && (params.cwd == null || cwdOf(summary) === params.cwd))
  if (params.cursor != null) {
    const [time, id] = decodeCursor(params.cursor)
    rest = rest.filter((summary) => order(time, id, summary) > 0)
  }
  const page = rest.slice(0, pageSize)
  const sessions = page.map((summary): SessionInfo => ({
    sessionId: summary.id,
    cwd: cwdOf(summary),
    ...summary.firstPrompt !== undefined && { title: sessionTitle(summary.firstPrompt) },
    ...summary.lastTime !== undefined && { updatedAt: summary.lastTime },
  }))
  return rest.length > pageSize ? { sessions, nextCursor: encodeCursor(page.at(-1)!) } : { sessions }
}
