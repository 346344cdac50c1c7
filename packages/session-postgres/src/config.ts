import type { ConfigInput } from 'dsh-core'
import Schema from 'schemastery'
import { SCHEMA_NAME } from './schema.ts'

export interface PgStoreConfig {
  url?: string
  urlEnv?: string
  poolSize: number
  schema: string
  applicationName: string
  /** Accepted for app files shared with the JSONL store; every batch is committed, which meets both. */
  durability?: 'turn' | 'event'
}

/** Config of the PostgreSQL store: exactly one of `url` and `urlEnv`, checked when the store starts. */
export const PgStoreConfigSchema: Schema<ConfigInput<PgStoreConfig>, PgStoreConfig> = Schema.object({
  url: Schema.string().min(1)
    .description('postgres://user:password@host:port/database. Prefer urlEnv: a password in an app file ends up in version control.'),
  urlEnv: Schema.string().pattern(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .description('Name of the environment variable holding the URL.'),
  poolSize: Schema.natural().min(1).max(100).default(4)
    .description('Connections for listing and schema work; each open session holds one more connection of its own.'),
  schema: Schema.string().pattern(SCHEMA_NAME).default('dsh')
    .description('PostgreSQL schema of the tables (lower case letters, digits, "_"); created on start.'),
  applicationName: Schema.string().min(1).max(63).default('dsh-session')
    .description('application_name of the connections, as pg_stat_activity shows them.'),
  durability: Schema.union([Schema.const('turn'), Schema.const('event')]).default('event')
    .description('turn or event: both are met, since every write batch is a committed transaction; none is not offered.'),
}) as Schema<ConfigInput<PgStoreConfig>, PgStoreConfig>
