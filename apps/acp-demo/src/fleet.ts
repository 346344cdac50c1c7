import type { ListSessionsRequest, ListSessionsResponse, SessionInfo } from '@agentclientprotocol/sdk'
import type { FleetProcess, FleetSession, ReleaseAnswer, ReleaseRequest, SessionFleet, SessionPosition } from './harness-types.ts'
import { CodedError } from 'dsh-core'
import { AcpDemoError } from './errors.ts'
import { CREATED_EVENT, PARENT_EVENT, readCursor, sessionTitle, signCursor } from './session-list.ts'

/** The ACP extension method by which a client asks, through this process, the holder of a session to release it. */
export const RELEASE_METHOD = '_dsh/release_session'
/** The ACP extension notification a holder sends its own client when it has released a session on request. */
export const RELEASED_NOTIFICATION = '_dsh/session_released'
/** How long a holder waits for the turn in flight to end when the request names no `waitMs`. */
export const DEFAULT_RELEASE_WAIT_MS = 10_000

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** What `_meta.dsh` says of a listed session: its holder when a live process holds it, its last activity, and a child's parent link. */
export interface FleetMeta {
  holder?: FleetProcess & { since: string; self: boolean }
  /** A child session's parent (its `fork/parent` event): the parent's id, the fork's mode and description. */
  parent?: string
  mode?: string
  description?: string
  lastActivity: string | null
  createdAt: string
}

/**
 * One `session/list` page from a fleet store: every stored session of the database, open or not, newest stored
 * first, one query per page. A held session carries its holder in `_meta.dsh.holder`. The cursor is the
 * store's position, signed by this process; paging on it is stable while sessions are written or created.
 */
export async function fleetListPage(fleet: SessionFleet, params: ListSessionsRequest, fallbackCwd: string, pageSize: number): Promise<ListSessionsResponse> {
  const after = params.cursor != null ? positionOf(params.cursor) : undefined
  // sessions without a recorded cwd are listed under the fallback: that filter is applied here, the others in the query
  const inQuery = params.cwd != null && params.cwd !== fallbackCwd
  const page = await fleet.page({
    limit: pageSize, after, keep: [CREATED_EVENT, PARENT_EVENT],
    ...inQuery && { filter: { type: CREATED_EVENT, field: 'cwd', value: params.cwd! } },
  })
  const cwdOf = (session: FleetSession) => (session.kept[CREATED_EVENT] as { cwd?: string } | undefined)?.cwd ?? fallbackCwd
  const sessions = page.sessions
    .filter((session) => params.cwd == null || inQuery || cwdOf(session) === params.cwd)
    .map((session): SessionInfo => ({
      sessionId: session.id,
      cwd: cwdOf(session),
      ...titleOf(session),
      ...session.lastTime !== undefined && { updatedAt: session.lastTime },
      _meta: { dsh: metaOf(session, fleet.self) },
    }))
  return page.next ? { sessions, nextCursor: signCursor(['fleet', page.next.created, page.next.id]) } : { sessions }
}

/** The `fork/parent` data a child session's log opens with, when it has one. */
function linkOf(session: FleetSession): { parent: string; mode: string; description: string } | undefined {
  const link = session.kept[PARENT_EVENT] as { parent?: unknown; mode?: unknown; description?: unknown } | undefined
  return typeof link?.parent === 'string' ? { parent: link.parent, mode: String(link.mode), description: String(link.description) } : undefined
}

/** A root's first prompt; a child's mode and description, as the JSONL listing titles it. */
function titleOf(session: FleetSession): { title?: string } {
  const link = linkOf(session)
  if (link) return { title: sessionTitle(`${link.mode}: ${link.description}`) }
  return session.firstPrompt === undefined ? {} : { title: sessionTitle(session.firstPrompt) }
}

function metaOf(session: FleetSession, self: FleetProcess): FleetMeta {
  const { holder } = session
  return {
    ...holder && { holder: { host: holder.host, pid: holder.pid, since: holder.since, self: holder.host === self.host && holder.pid === self.pid } },
    ...linkOf(session),
    lastActivity: session.lastTime ?? null,
    createdAt: session.createdAt,
  }
}

function positionOf(cursor: string): SessionPosition {
  const value = readCursor(cursor)
  if (Array.isArray(value) && value.length === 3 && value[0] === 'fleet' && typeof value[1] === 'string' && typeof value[2] === 'string') {
    return { created: value[1], id: value[2] }
  }
  throw new AcpDemoError('INVALID_PARAMS', `session/list: cursor ${JSON.stringify(cursor)} is not one this listing gave out; pass a nextCursor `
    + 'from an earlier session/list answer of this agent process, or none for the first page', { cursor })
}

export interface ReleaseParams {
  sessionId: string
  holder?: FleetProcess
  waitMs: number
}

/** The params of `_dsh/release_session`, checked: a UUID session id, an optional holder `{ host, pid }`, an optional `waitMs`. */
export function releaseParams(raw: unknown): ReleaseParams {
  const fail = (what: string, value: unknown) => new AcpDemoError('INVALID_PARAMS', `${RELEASE_METHOD}: ${what} ${JSON.stringify(value)}`
    + '; expected { sessionId: "<uuid>", holder?: { host: "<name>", pid: <integer> }, waitMs?: <0 … 600000> }', { [what]: value })
  const params = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>
  if (typeof params.sessionId !== 'string' || !UUID.test(params.sessionId)) throw fail('sessionId', params.sessionId)
  const { holder } = params as { holder?: Record<string, unknown> }
  if (holder !== undefined && (typeof holder !== 'object' || holder === null || typeof holder.host !== 'string' || !Number.isInteger(holder.pid))) {
    throw fail('holder', holder)
  }
  const waitMs = params.waitMs ?? DEFAULT_RELEASE_WAIT_MS
  if (!Number.isInteger(waitMs) || (waitMs as number) < 0 || (waitMs as number) > 600_000) throw fail('waitMs', waitMs)
  return { sessionId: params.sessionId, waitMs: waitMs as number, ...holder && { holder: { host: holder.host as string, pid: holder.pid as number } } }
}

const STORE_CODES = { NOT_HELD: 'NOT_HELD', KEPT: 'KEPT', NO_ANSWER: 'NO_ANSWER', BAD_REQUEST: 'INVALID_PARAMS' } as const

/** `_dsh/release_session` on the asking side: the store asks the holder and waits; its refusals become coded ACP errors. */
export async function requestRelease(fleet: SessionFleet | undefined, raw: unknown): Promise<{ released: true; sessionId: string; holder: FleetProcess & { since: string } }> {
  if (!fleet) throw new AcpDemoError('UNKNOWN_SESSION', `${RELEASE_METHOD} is not offered by this agent: its session store is not shared by a fleet (use dsh-session-postgres)`)
  const params = releaseParams(raw)
  try {
    const { holder } = await fleet.requestRelease(params.sessionId, { waitMs: params.waitMs, holder: params.holder })
    return { released: true, sessionId: params.sessionId, holder }
  } catch (error) {
    // the store's refusals are DSH coded errors (dsh-session-postgres's); anything else is not a refusal
    if (!CodedError.is(error) || !Object.hasOwn(STORE_CODES, error.code)) throw error
    throw new AcpDemoError(STORE_CODES[error.code as keyof typeof STORE_CODES], `${RELEASE_METHOD}: ${error.message}`, { sessionId: params.sessionId })
  }
}

/** What the holding side needs of its connection to release a session at a turn boundary. */
export interface ReleaseSide {
  /** True when this connection has the session open. */
  has(sessionId: string): boolean
  /** Resolves once no prompt turn of the session is running. */
  idle(sessionId: string): Promise<void>
  /** Closes the session as `session/close` does (its log stays stored, its lock is let go). */
  close(sessionId: string): Promise<void>
  /** Tells this connection's client that the session was released, and to whom. */
  tell(sessionId: string, to: FleetProcess): Promise<void>
}

/**
 * The holding side: a request for a session of this connection waits for the turn in flight to end (at most
 * `waitMs`), then closes the session and tells the client. A turn still running at the bound keeps the session.
 */
export function releaseHandler(side: ReleaseSide): (request: ReleaseRequest) => Promise<ReleaseAnswer> | undefined {
  return (request) => {
    if (!side.has(request.sessionId)) return undefined
    return (async (): Promise<ReleaseAnswer> => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const bound = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), request.waitMs) })
      const ended = await Promise.race([side.idle(request.sessionId).then(() => 'idle' as const), bound]).finally(() => clearTimeout(timer))
      if (ended === 'late') {
        return { released: false, reason: `a prompt turn of the session is still running after ${request.waitMs} ms; it is released only at a turn boundary, ask again once the turn ends` }
      }
      // closed by its own client meanwhile: released all the same
      if (side.has(request.sessionId)) await side.close(request.sessionId)
      await side.tell(request.sessionId, request.from).catch(() => {})
      return { released: true }
    })()
  }
}
