import { hostname } from 'node:os'
import type pg from 'pg'
import type { SessionHolder } from 'dsh-session'
import type { FleetProcess } from './fleet-types.ts'
import { ident } from './schema.ts'

/** This process as the fleet names it. */
export const SELF: FleetProcess = { host: hostname(), pid: process.pid }

/**
 * SQL true when holder row `h` is live: the backend it names holds the session's advisory lock now in this
 * database (one uncorrelated, hashed look at `pg_locks` per query, whatever the rows). A row whose backend died (its process killed) stays in the table but is stale, never live.
 */
export const LIVE = (h: string) => `(${h}.backend_pid, ${h}.lock_key) IN (SELECT l.pid, (l.classid::bigint << 32) | l.objid::bigint
  FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`

/** Records this process as the holder of `id`, on the connection that has just taken its lock. */
export async function recordHolder(client: pg.ClientBase, schema: string, id: string, key: string): Promise<void> {
  await client.query(`INSERT INTO ${ident(schema)}.holders (session_id, host, pid, backend_pid, lock_key)
    VALUES ($1, $2, $3, pg_backend_pid(), $4::bigint)
    ON CONFLICT (session_id) DO UPDATE SET host = excluded.host, pid = excluded.pid, backend_pid = excluded.backend_pid,
      lock_key = excluded.lock_key, since = now()`, [id, SELF.host, SELF.pid, key])
}

/** Removes this connection's holder row of `id` and lets go of the lock, before the connection ends. */
export async function forgetHolder(client: pg.ClientBase, schema: string, id: string): Promise<void> {
  await client.query(`DELETE FROM ${ident(schema)}.holders WHERE session_id = $1 AND backend_pid = pg_backend_pid()`, [id])
  await client.query('SELECT pg_advisory_unlock_all()')
}

/** The live holder of `id` and the time of its last event, read without any lock; undefined when none is live. */
export async function liveHolder(client: pg.Pool | pg.ClientBase, schema: string, id: string): Promise<(SessionHolder & { lastTime: string | undefined }) | undefined> {
  const s = ident(schema)
  const { rows } = await client.query<{ host: string; pid: number; since: Date; last: string | null }>(`SELECT h.host, h.pid, h.since,
      (SELECT e.body->>'time' FROM ${s}.events e WHERE e.session_id = h.session_id ORDER BY e.seq DESC LIMIT 1) AS last
    FROM ${s}.holders h WHERE h.session_id = $1 AND ${LIVE('h')}`, [id])
  const row = rows[0]
  return row && { host: row.host, pid: row.pid, since: row.since.toISOString(), lastTime: row.last ?? undefined }
}

/** "host:pid". */
export const processName = (process: FleetProcess): string => `${process.host}:${process.pid}`

/** "12 s", "3 min", "2 h": how long ago `iso` was, for a message. */
export function ago(iso: string | undefined, now = Date.now()): string {
  if (iso === undefined) return 'never'
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000))
  if (seconds < 120) return `${seconds} s ago`
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`
  return `${Math.round(seconds / 3600)} h ago`
}
