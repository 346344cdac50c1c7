import { Context, type Message } from 'cordis'
import pg from 'pg'
import { afterEach, inject } from 'vitest'
import { type PgStoreConfig } from '../src/index.ts'
import { PgSessionStore } from '../src/store.ts'
import { throwawaySchema } from '../src/testing/index.ts'

const cleanups: (() => Promise<unknown>)[] = []

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** The URL of the run's PostgreSQL server. */
export const pgUrl = (): string => inject('pgUrl')

/** Runs one statement on its own connection. */
export async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: pgUrl() })
  await client.connect()
  try {
    return await client.query(text, values)
  } finally {
    await client.end()
  }
}

/** A schema name nobody used yet, dropped after the test. */
export function freshSchema(keep = false): string {
  const { schema, drop } = throwawaySchema(pgUrl())
  if (!keep) cleanups.push(drop)
  return schema
}

/** A real Context with the PostgreSQL store mounted, and the log messages it emits. */
export async function startStore(config: Partial<PgStoreConfig> = {}) {
  const ctx = new Context()
  const logs: Message[] = []
  ctx.logger.exporter({ export: message => logs.push(message) })
  const fiber = await ctx.plugin(PgSessionStore, { url: pgUrl(), ...config } as PgStoreConfig)
  cleanups.push(() => fiber.dispose())
  return { ctx, fiber, logs, sessions: ctx.sessions as PgSessionStore }
}

/** The text of every logged message. */
export function logText(logs: Message[]): string {
  return logs.map(message => message.args.join(' ')).join('\n')
}
