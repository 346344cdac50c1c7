import type pg from 'pg'
import type { FleetSession, SessionPage, SessionPageRequest, SessionPosition } from './fleet-types.ts'
import { SessionPostgresError } from './errors.ts'
import { LIVE } from './holders.ts'
import { ident } from './schema.ts'

/** Events read from the start of each listed session for its title and `keep` types: bounds a page's cost. */
export const HEAD_EVENTS = 64
export const MAX_PAGE = 1000

const ISO_MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/

/** The page query and its values: one statement, walking `sessions_by_created` backwards from `after`. */
export function pageQuery(schema: string, request: SessionPageRequest): { text: string; values: unknown[] } {
  const s = ident(schema)
  const values: unknown[] = [request.limit + 1, request.keep ?? [], HEAD_EVENTS]
  const where: string[] = []
  if (request.after) {
    values.push(request.after.created, request.after.id)
    where.push(`(s.created_at, s.id) < ($${values.length - 1}::timestamptz, $${values.length})`)
  }
  if (request.filter) {
    values.push(request.filter.type, request.filter.field, request.filter.value)
    const n = values.length
    where.push(`(SELECT e.body->'data'->>$${n - 1} FROM ${s}.events e WHERE e.session_id = s.id AND e.seq <= $3
      AND e.body->>'type' = $${n - 2} ORDER BY e.seq LIMIT 1) = $${n}`)
  }
  const text = `SELECT s.id,
      to_char(s.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS created,
      (SELECT e.body->>'time' FROM ${s}.events e WHERE e.session_id = s.id ORDER BY e.seq DESC LIMIT 1) AS last,
      (SELECT e.body->'data'->>'text' FROM ${s}.events e WHERE e.session_id = s.id AND e.seq <= $3
        AND e.body->>'type' = 'user/message' ORDER BY e.seq LIMIT 1) AS prompt,
      (SELECT json_object_agg(k.type, k.data) FROM (SELECT DISTINCT ON (e.body->>'type') e.body->>'type' AS type, e.body->'data' AS data
        FROM ${s}.events e WHERE e.session_id = s.id AND e.seq <= $3 AND e.body->>'type' = ANY ($2::text[])
        ORDER BY e.body->>'type', e.seq) k) AS kept,
      ${request.turns ? `(SELECT count(*)::integer FROM ${s}.events e WHERE e.session_id = s.id AND e.body->>'type' = 'turn/start')` : 'NULL'} AS turns,
      h.host, h.pid, h.since
    FROM ${s}.sessions s
    LEFT JOIN ${s}.holders h ON h.session_id = s.id AND ${LIVE('h')}
    ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY s.created_at DESC, s.id DESC
    LIMIT $1`
  return { text, values }
}

interface Row {
  id: string; created: string; last: string | null; prompt: string | null; kept: Record<string, unknown> | null
  turns: number | null; host: string | null; pid: number | null; since: Date | null
}

/** One page of the fleet's sessions, newest stored first, each with its live holder. */
export async function listPage(pool: pg.Pool, schema: string, request: SessionPageRequest): Promise<SessionPage> {
  checkPageRequest(request)
  const { rows } = await pool.query<Row>(pageQuery(schema, request))
  const more = rows.length > request.limit
  const sessions = rows.slice(0, request.limit).map((row): FleetSession => ({
    id: row.id,
    createdAt: row.created,
    lastTime: row.last ?? undefined,
    firstPrompt: row.prompt ?? undefined,
    ...row.turns !== null && { turns: row.turns },
    kept: row.kept ?? {},
    ...row.host !== null && { holder: { host: row.host, pid: row.pid!, since: row.since!.toISOString() } },
    position: { created: row.created, id: row.id },
  }))
  return more ? { sessions, next: sessions.at(-1)!.position } : { sessions }
}

function checkPageRequest(request: SessionPageRequest): void {
  if (!Number.isInteger(request.limit) || request.limit < 1 || request.limit > MAX_PAGE) {
    throw new SessionPostgresError('BAD_REQUEST', `page limit ${JSON.stringify(request.limit)} is not an integer from 1 to ${MAX_PAGE}`)
  }
  if (request.after !== undefined) checkPosition(request.after)
}

/** A position as a page gave it out: a UTC time with microseconds and a session id; else a one-line error. */
export function checkPosition(position: SessionPosition): void {
  const ok = typeof position === 'object' && position !== null && typeof position.created === 'string'
    && ISO_MICROS.test(position.created) && !Number.isNaN(Date.parse(position.created)) && typeof position.id === 'string' && position.id.length > 0
  if (!ok) {
    throw new SessionPostgresError('BAD_REQUEST', `listing position ${JSON.stringify(position)} is not one a page gave out: `
      + 'expected { created: "YYYY-MM-DDTHH:MM:SS.ffffffZ", id: "<session id>" }')
  }
}
