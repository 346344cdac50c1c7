import pg from 'pg'
import { SessionError } from 'dsh-session'
import { eventRows } from './cursor.ts'
import { pgFailure } from './describe-error.ts'
import { SessionPostgresError } from './errors.ts'
import { checkSchemaName, ident } from './schema.ts'
import { resolveTarget, type PgTarget } from './target.ts'

export interface ReadOptions {
  url?: string
  urlEnv?: string
  /** Default `dsh`. */
  schema?: string
}

/**
 * One read-only tool connection (no session lock): the target and schema checked, the connection open, a
 * refused one reported without the password. The caller ends the client.
 */
export async function connectReader(options: ReadOptions, applicationName: string): Promise<{ client: pg.Client; target: PgTarget; schema: string }> {
  const target = resolveTarget(options)
  const schema = checkSchemaName(options.schema ?? 'dsh')
  const client = new pg.Client({ connectionString: target.url, application_name: applicationName })
  client.on('error', () => {})
  try {
    await client.connect()
  } catch (error) {
    throw pgFailure(error, target, 'connecting', 'CONNECT')
  }
  return { client, target, schema }
}

/**
 * Streams a stored session's raw events in seq order, read-only and without its writer lock (a session
 * being written can be read). For tools such as `dsh-prompt diff`; stores use `sessions.open(id)`.
 * Fails with NOT_FOUND when there is no such session; errors never contain the password.
 */
export async function* readSessionEvents(options: ReadOptions, id: string): AsyncGenerator<{ seq: number; body: unknown }> {
  const { client, target, schema } = await connectReader(options, 'dsh-session-reader')
  try {
    const tables = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [`${ident(schema)}.sessions`])
    if (!tables.rows[0]?.found) throw new SessionError('NOT_FOUND', `schema "${schema}" at ${target.safe} holds no DSH sessions`)
    const found = await client.query(`SELECT 1 FROM ${ident(schema)}.sessions WHERE id = $1`, [id])
    if (found.rowCount === 0) throw new SessionError('NOT_FOUND', `session "${id}" does not exist in schema "${schema}" at ${target.safe}`)
    yield* eventRows(client, schema, id)
  } catch (error) {
    if (SessionError.is(error) || SessionPostgresError.is(error)) throw error
    throw pgFailure(error, target, `reading session "${id}"`, 'READ_FAILED')
  } finally {
    await client.end().catch(() => {})
  }
}
