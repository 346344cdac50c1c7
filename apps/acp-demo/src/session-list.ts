import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { ListSessionsRequest, ListSessionsResponse, SessionInfo } from '@agentclientprotocol/sdk'
import { compareCodeUnits, oneLine } from 'dsh-core'
import Schema from 'schemastery'
import { defineEvents, record, type EventMapOf } from 'dsh-harness'
import type { SessionSummary } from 'dsh-harness'
import { AcpDemoError } from './errors.ts'

const ACP_EVENTS = defineEvents({
  /**
   * Logged by `session/new` before it answers: the session exists from then on, so `session/list` shows it
   * and `session/load` opens it even when it never got a prompt. `cwd` is the client's working directory.
   */
  'acp/session': record({ cwd: Schema.string() }),
})

declare module 'dsh-session' {
  interface SessionEventMap extends EventMapOf<typeof ACP_EVENTS> {}
}

/** The event type that records an ACP session's creation. */
export const CREATED_EVENT = 'acp/session' satisfies keyof typeof ACP_EVENTS

/** The event type that opens a child session's log (a fork, a side question) and links it to its parent. */
export const PARENT_EVENT = 'fork/parent'

/** Sessions per `session/list` page when the app file does not say. */
export const DEFAULT_PAGE_SIZE = 50

const TITLE_LENGTH = 80

/** The first prompt on one line (dsh-core's one rule), cut to 80 characters: what an editor's session list shows. */
export function sessionTitle(prompt: string): string {
  return oneLine(prompt, TITLE_LENGTH)
}

/**
 * The key this process signs its cursors with: a cursor is honoured only when it carries the HMAC of its
 * payload under this key, so any cursor this agent did not give out (forged, edited, from an earlier process)
 * is refused, whatever its shape, and one it gave out holds even after the sessions it names have changed.
 */
const CURSOR_KEY = randomBytes(32)
const TAG_BYTES = 16

const tagOf = (payload: Buffer) => createHmac('sha256', CURSOR_KEY).update(payload).digest().subarray(0, TAG_BYTES)

// a cursor names the last session of the page it ends, by its place in the listing's order:
// its root's time and id, then its own id (a root's is its own)
function encodeCursor(entry: Listed): string {
  return signCursor([entry.root.lastTime ?? '', entry.root.id, entry.summary.id])
}

/** `value` as an opaque cursor this process will recognize: `<base64url JSON>.<HMAC tag>`. */
export function signCursor(value: unknown): string {
  const payload = Buffer.from(JSON.stringify(value))
  return `${payload.toString('base64url')}.${tagOf(payload).toString('base64url')}`
}

/** The value a cursor of this process carries; INVALID_PARAMS for any cursor this process did not sign. */
export function readCursor(cursor: string): unknown {
  const parts = cursor.split('.')
  if (parts.length === 2) {
    const [payload, tag] = parts.map((part) => Buffer.from(part!, 'base64url'))
    // canonical base64url only, so one cursor has one spelling
    const canonical = payload!.toString('base64url') === parts[0] && tag!.toString('base64url') === parts[1]
    if (canonical && tag!.length === TAG_BYTES && timingSafeEqual(tag!, tagOf(payload!))) {
      return JSON.parse(payload!.toString('utf8'))
    }
  }
  throw new AcpDemoError('INVALID_PARAMS', `session/list: cursor ${JSON.stringify(cursor)} is not one this agent gave out; pass a nextCursor `
    + 'from an earlier session/list answer of this agent process (cursors end with it), or none for the first page', { cursor })
}

function decodeCursor(cursor: string): [string, string, string] {
  const value = readCursor(cursor)
  if (Array.isArray(value) && value.length === 3 && value.every((part) => typeof part === 'string')) return value as [string, string, string]
  // signed by this process, but by the fleet listing: the same refusal
  throw new AcpDemoError('INVALID_PARAMS', `session/list: cursor ${JSON.stringify(cursor)} is not one this listing gave out; pass a nextCursor `
    + 'from an earlier session/list answer of this agent process (cursors end with it), or none for the first page', { cursor })
}

/** Newest first, ties by id: the order root sessions come in, and the one cursors are read against. */
const order = (time: string, id: string, summary: SessionSummary) => compareCodeUnits(time, summary.lastTime ?? '') || compareCodeUnits(summary.id, id)

/** A listed session and the root of its tree (itself for a root). */
interface Listed {
  summary: SessionSummary
  root: SessionSummary
}

/** The summaries (in the harness's tree order: each child right after its parent) with their roots. */
function withRoots(summaries: readonly SessionSummary[]): Listed[] {
  const rootOf = new Map<string, SessionSummary>()
  return summaries.map((summary) => {
    const root = (summary.parent && rootOf.get(summary.parent.id)) || summary
    rootOf.set(summary.id, root)
    return { summary, root }
  })
}

/** The sessions after the cursor's: later trees, and in the cursor's own tree those listed after it. */
function afterCursor(listed: readonly Listed[], [time, rootId, id]: [string, string, string]): Listed[] {
  const sameTree = (entry: Listed) => entry.root.id === rootId && (entry.root.lastTime ?? '') === time
  const tree = listed.filter(sameTree)
  const at = tree.findIndex((entry) => entry.summary.id === id)
  return listed.filter((entry) => sameTree(entry) ? tree.indexOf(entry) > at : order(time, rootId, entry.root) > 0)
}

/**
 * One page of `session/list`: each session's id, its working directory (the client's at `session/new`, else
 * `fallbackCwd`), its first prompt as the title and the time of its last event, newest first; `nextCursor`
 * when more follow. A child session (a fork, a side question) comes right after its parent, in its parent's
 * working directory, titled by its mode and description, its parent named in `_meta.dsh.parent`. A `cwd` filter
 * keeps the sessions of that directory.
 */
export function listPage(summaries: readonly SessionSummary[], params: ListSessionsRequest, fallbackCwd: string, pageSize: number): ListSessionsResponse {
  const cwdOf = (summary: SessionSummary) => {
    const created = summary.kept?.[CREATED_EVENT]
    return created?.type === CREATED_EVENT ? created.data.cwd : fallbackCwd
  }
  let rest = withRoots(summaries.filter((summary) => !summary.busy && summary.broken === undefined))
    .filter((entry) => params.cwd == null || cwdOf(entry.root) === params.cwd)
  if (params.cursor != null) rest = afterCursor(rest, decodeCursor(params.cursor))
  const page = rest.slice(0, pageSize)
  const sessions = page.map(({ summary, root }): SessionInfo => ({
    sessionId: summary.id,
    cwd: cwdOf(root),
    ...titleOf(summary),
    ...summary.lastTime !== undefined && { updatedAt: summary.lastTime },
    ...summary.parent && { _meta: { dsh: { parent: summary.parent.id, mode: summary.parent.mode, description: summary.parent.description } } },
  }))
  return rest.length > pageSize ? { sessions, nextCursor: encodeCursor(page.at(-1)!) } : { sessions }
}

/** A root's first prompt; a child's mode and description (what it was forked to do). */
function titleOf(summary: SessionSummary): { title?: string } {
  if (summary.parent) return { title: sessionTitle(`${summary.parent.mode}: ${summary.parent.description}`) }
  return summary.firstPrompt === undefined ? {} : { title: sessionTitle(summary.firstPrompt) }
}
