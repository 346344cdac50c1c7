import type pg from 'pg'
import { SessionPostgresError } from './errors.ts'
import { lockKey } from './lock-key.ts'

/** The schema version this code writes and reads. */
export const SCHEMA_VERSION = 2

/** A valid schema name: what `ident` may quote as it is (lower case letters, digits, "_", 63 at most). */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** `schema` when it is a valid schema name; else a one-line CONFIG error naming the value and the rule. */
export function checkSchemaName(schema: unknown): string {
  if (typeof schema === 'string' && SCHEMA_NAME.test(schema)) return schema
  throw new SessionPostgresError('CONFIG', `schema ${JSON.stringify(schema)} is not a valid schema name: use 1 to 63 lower-case letters, `
    + 'digits and "_", not starting with a digit (e.g. dsh)')
}

/** Quotes an identifier already checked against SCHEMA_NAME. */
export function ident(name: string): string {
  return `"${name}"`
}

const MIGRATIONS: ((schema: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.sessions (
      id text PRIMARY KEY,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE ${s}.events (
      session_id text NOT NULL REFERENCES ${s}.sessions (id) ON DELETE CASCADE,
      seq integer NOT NULL CHECK (seq > 0),
      body json NOT NULL,
      PRIMARY KEY (session_id, seq)
    );`,
  // the fleet: who holds each session (live while its advisory lock is held), and the listing's order
  (s) => `
    CREATE TABLE ${s}.holders (
      session_id text PRIMARY KEY,
      host text NOT NULL,
      pid integer NOT NULL,
      backend_pid integer NOT NULL,
      lock_key bigint NOT NULL,
      since timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sessions_by_created ON ${s}.sessions (created_at, id);`,
]

/**
 * Creates the schema or brings it to SCHEMA_VERSION, in one transaction serialized by an advisory lock,
 * so processes starting together migrate once. A schema newer than this code fails with SCHEMA.
 */
export async function migrate(client: pg.PoolClient, schema: string): Promise<number> {
  const s = ident(schema)
  await client.query('BEGIN')
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [lockKey(schema, '(migrations)')])
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`)
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_version (
      version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
    const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${s}.schema_version`)
    const current = rows[0]?.version ?? 0
    if (current > SCHEMA_VERSION) {
      throw new SessionPostgresError('SCHEMA', `schema "${schema}" is at version ${current}, newer than this dsh-session-postgres knows `
        + `(${SCHEMA_VERSION}); upgrade dsh-session-postgres or point "schema" elsewhere`)
    }
    for (let version = current + 1; version <= SCHEMA_VERSION; version++) {
      await client.query(MIGRATIONS[version - 1]!(s))
      await client.query(`INSERT INTO ${s}.schema_version (version) VALUES ($1)`, [version])
    }
    await client.query('COMMIT')
    return SCHEMA_VERSION
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}
