import type { LoggedEvent } from './logs.ts'
import pg from 'pg'

/** The database's own counters the fleet bench compares before and after its steady phase. */
export interface PgStats {
  at: number
  /** pg_stat_database of the current database. */
  xact_commit: number
  xact_rollback: number
  tup_inserted: number
  blks_hit: number
  blks_read: number
  /** pg_stat_user_tables: rows inserted into the schema's `events` table. */
  events_inserted: number
  /** pg_stat_wal (PostgreSQL 14+; 0 where the view is missing). */
  wal_records: number
  wal_bytes: number
}

/** Reads the counters on a short-lived connection of its own (the stats collector lags by up to about a second). */
export async function pgStats(url: string, schema: string): Promise<PgStats> {
  const client = new pg.Client({ connectionString: url, application_name: 'dsh-bench-fleet-stats' })
  await client.connect()
  try {
    const db = (await client.query(`SELECT xact_commit, xact_rollback, tup_inserted, blks_hit, blks_read
      FROM pg_stat_database WHERE datname = current_database()`)).rows[0]
    const table = (await client.query(`SELECT n_tup_ins FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'events'`, [schema])).rows[0]
    const wal = (await client.query('SELECT wal_records, wal_bytes FROM pg_stat_wal').catch(() => ({ rows: [{ wal_records: 0, wal_bytes: 0 }] }))).rows[0]
    return {
      at: performance.now(),
      xact_commit: Number(db.xact_commit),
      xact_rollback: Number(db.xact_rollback),
      tup_inserted: Number(db.tup_inserted),
      blks_hit: Number(db.blks_hit),
      blks_read: Number(db.blks_read),
      events_inserted: Number(table?.n_tup_ins ?? 0),
      wal_records: Number(wal.wal_records),
      wal_bytes: Number(wal.wal_bytes),
    }
  } finally {
    await client.end()
  }
}

/** Every stored event of the sessions of `schema`, per session in seq order, read in one query (no lock). */
export async function storedLogs(url: string, schema: string): Promise<Map<string, LoggedEvent[]>> {
  const client = new pg.Client({ connectionString: url, application_name: 'dsh-bench-fleet-logs' })
  await client.connect()
  try {
    const { rows } = await client.query<{ session_id: string; body: LoggedEvent }>(`SELECT session_id, body FROM "${schema}".events ORDER BY session_id, seq`)
    const logs = new Map<string, LoggedEvent[]>()
    for (const { session_id: id, body } of rows) {
      let log = logs.get(id)
      if (!log) logs.set(id, log = [])
      log.push(body)
    }
    return logs
  } finally {
    await client.end()
  }
}
