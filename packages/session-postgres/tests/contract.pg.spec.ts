import { Context } from 'cordis'
import { storeContract } from 'dsh-session/testing'
import { PgSessionStore } from '../src/store.ts'
import { freshSchema, pgUrl, sql } from './helpers.ts'

storeContract('PostgreSQL', {
  propertyRuns: 8,
  async space() {
    const schema = freshSchema(true)
    return {
      async start() {
        const ctx = new Context()
        const fiber = await ctx.plugin(PgSessionStore, { url: pgUrl(), schema, poolSize: 2, applicationName: 'dsh-test' })
        return { sessions: ctx.sessions, dispose: () => fiber.dispose() }
      },
      remove: async () => { await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`) },
    }
  },
})
