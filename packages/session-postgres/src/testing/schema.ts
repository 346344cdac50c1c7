import { randomBytes } from 'node:crypto'
import pg from 'pg'

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
