import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { readSessionEvents } from '../read.ts'

/** A schema name no test used yet on the database at `url`, and `drop()` to remove it with all it holds. */
export function throwawaySchema(url: string): { schema: string; drop(): Promise<void> } {
  const schema = `t_${randomBytes(6).toString('hex')}`
  return {
    schema,
    async drop() {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
      } finally {
        await client.end()
      }
    },
  }
}

/** Every stored event of session `id` in `schema`, read as a tool reads it (no lock), in seq order. */
export async function storedEvents(url: string, schema: string, id: string): Promise<{ seq: number; type: string; data: any }[]> {
  const events = []
  for await (const row of readSessionEvents({ url, schema }, id)) events.push(row.body as { seq: number; type: string; data: any })
  return events
}
