import { pgFailure } from './describe-error.ts'
import { connectReader } from './read.ts'
import { SessionPostgresError } from './errors.ts'
import { LIVE } from './holders.ts'
import { ident } from './schema.ts'

/** A process of the fleet holding sessions now. */
export interface FleetHolderReport {
  host: string
  pid: number
  /** Sessions it holds. */
  sessions: number
  /** When it took the first of them (ISO). */
  since: string
}

/** The held session whose open turn started longest ago. */
export interface OpenTurnReport {
  sessionId: string
  host: string
  pid: number
  turn: number
  /** When the turn started (ISO). */
  startedAt: string
}

/** A held session's prompt-cache use over the last hour: cache reads over every prompt token. */
export interface CacheShareReport {
  sessionId: string
  host: string
  pid: number
  requests: number
  inputTokens: number
  cacheReadTokens: number
  /** cacheReadTokens / inputTokens, 0 … 1. */
  cachedShare: number
  /** True when the figures are the scripted model's emulation, not a provider's. */
  emulated: boolean
}

export interface FleetReport {
  schema: string
  database: string
  at: string
  /** Sessions stored in the schema. */
  stored: number
  holders: FleetHolderReport[]
  oldestOpenTurn: OpenTurnReport | undefined
  /** Worst first, at most `worst` of them. */
  worstCachedShare: CacheShareReport[]
}

/**
 * The operator's view of a fleet (`dsh-prompt sessions pg:`), read-only and without any session lock: the
 * live holders, the oldest open turn among held sessions, and the held sessions with the lowest cached share
 * of their prompt tokens over the last hour.
 */
export async function readFleetReport(options: { url?: string; urlEnv?: string; schema?: string; worst?: number }): Promise<FleetReport> {
  const { client, target, schema } = await connectReader(options, 'dsh-fleet-report')
  const s = ident(schema)
  try {
    const tables = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [`${s}.holders`])
    if (!tables.rows[0]?.found) throw new SessionPostgresError('SCHEMA', `schema "${schema}" at ${target.safe} holds no DSH fleet (no ${schema}.holders table; a store of version 2 creates it)`)
    await client.query('BEGIN READ ONLY')
    const stored = await client.query<{ n: number }>(`SELECT count(*)::integer AS n FROM ${s}.sessions`)
    const holders = await client.query<{ host: string; pid: number; sessions: number; since: Date }>(`SELECT h.host, h.pid, count(*)::integer AS sessions,
        min(h.since) AS since FROM ${s}.holders h WHERE ${LIVE('h')} GROUP BY h.host, h.pid ORDER BY min(h.since), h.host, h.pid`)
    const open = await client.query<{ session_id: string; host: string; pid: number; turn: number; started: string }>(`SELECT h.session_id, h.host, h.pid,
        t.turn, t.started FROM ${s}.holders h
      CROSS JOIN LATERAL (SELECT e.seq, (e.body->'data'->>'turn')::integer AS turn, e.body->>'time' AS started FROM ${s}.events e
        WHERE e.session_id = h.session_id AND e.body->>'type' = 'turn/start' ORDER BY e.seq DESC LIMIT 1) t
      WHERE ${LIVE('h')} AND NOT EXISTS (SELECT 1 FROM ${s}.events x WHERE x.session_id = h.session_id AND x.seq > t.seq AND x.body->>'type' = 'turn/end')
      ORDER BY t.started, h.session_id LIMIT 1`)
    const shares = await client.query<{ session_id: string; host: string; pid: number; requests: number; input: string; cached: string; emulated: boolean }>(`SELECT
        h.session_id, h.host, h.pid, count(*)::integer AS requests,
        sum((e.body->'data'->'usage'->>'inputTokens')::bigint) AS input, sum((e.body->'data'->'usage'->>'cacheReadTokens')::bigint) AS cached,
        bool_or(coalesce((e.body->'data'->'usage'->>'emulated')::boolean, false)) AS emulated
      FROM ${s}.holders h JOIN ${s}.events e ON e.session_id = h.session_id
      WHERE ${LIVE('h')} AND e.body->>'type' = 'assistant/message' AND e.body->'data'->'usage' IS NOT NULL
        AND (e.body->>'time')::timestamptz >= now() - interval '1 hour'
      GROUP BY h.session_id, h.host, h.pid
      HAVING sum((e.body->'data'->'usage'->>'inputTokens')::bigint) > 0`)
    await client.query('COMMIT')
    const worst = shares.rows.map((row): CacheShareReport => ({
      sessionId: row.session_id, host: row.host, pid: row.pid, requests: row.requests,
      inputTokens: Number(row.input), cacheReadTokens: Number(row.cached), cachedShare: Number(row.cached) / Number(row.input), emulated: row.emulated,
    })).sort((a, b) => a.cachedShare - b.cachedShare || a.sessionId.localeCompare(b.sessionId)).slice(0, options.worst ?? 5)
    const turn = open.rows[0]
    return {
      schema, database: target.safe, at: new Date().toISOString(), stored: stored.rows[0]!.n,
      holders: holders.rows.map((row) => ({ host: row.host, pid: row.pid, sessions: row.sessions, since: row.since.toISOString() })),
      oldestOpenTurn: turn && { sessionId: turn.session_id, host: turn.host, pid: turn.pid, turn: turn.turn, startedAt: turn.started },
      worstCachedShare: worst,
    }
  } catch (error) {
    if (error instanceof SessionPostgresError) throw error
    throw pgFailure(error, target, `reading the fleet of schema "${schema}"`, 'READ_FAILED')
  } finally {
    await client.end().catch(() => {})
  }
}
