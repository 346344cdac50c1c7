import { readSessionEvents } from 'dsh-session-postgres'
import type { PgInputOptions } from './cli.ts'
import { PromptInspectorError } from './errors.ts'
import { type LoggedHeader, headerOfEvent, pickHeader } from './session-file.ts'

/**
 * Reads the `request/header` with `seq` (the last one when omitted) of a session stored in PostgreSQL,
 * streaming its events read-only: a session being written can be diffed, its writer is not disturbed.
 */
export async function readPgSessionHeader(id: string, options: PgInputOptions, seq?: number): Promise<LoggedHeader> {
  const where = `pg:${id}`
  const headers: LoggedHeader[] = []
  try {
    for await (const row of readSessionEvents({ urlEnv: options.urlEnv, schema: options.schema }, id)) {
      const header = headerOfEvent(row.body, `${where}#${row.seq}`, null)
      if (header) headers.push(header)
    }
  } catch (error) {
    if (PromptInspectorError.is(error)) throw error
    throw new PromptInspectorError('INPUT', `${where}: ${(error as Error).message}`, { cause: error })
  }
  return pickHeader(headers, where, seq)
}
