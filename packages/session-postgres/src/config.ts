import { MAX_TIMER_MS, type ConfigInput } from 'dsh-core'
import Schema from 'schemastery'

/** 10 s: a healthy server answers a login in milliseconds; one that accepts and never answers fails after this. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000

export interface PgStoreConfig {
  url?: string
  urlEnv?: string
  poolSize: number
  schema: string
  applicationName: string
  /** How long a new connection may take to answer, in ms; omitted means `DEFAULT_CONNECT_TIMEOUT_MS`. */
  connectTimeoutMs?: number
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
  // checked by the store (checkSchemaName), whose message names the bad value
  schema: Schema.string().default('dsh')
    .description('PostgreSQL schema of the tables (lower case letters, digits, "_"); created on start.'),
  applicationName: Schema.string().min(1).max(63).default('dsh-session')
    .description('application_name of the connections, as pg_stat_activity shows them.'),
  connectTimeoutMs: Schema.natural().min(1).max(MAX_TIMER_MS).default(DEFAULT_CONNECT_TIMEOUT_MS)
    .description('How long a new connection may take to be ready (TCP, TLS, login), in ms; a server that accepts and never answers fails after it.'),
  durability: Schema.union([Schema.const('turn'), Schema.const('event')]).default('event')
    .description('turn or event: both are met, since every write batch is a committed transaction; none is not offered.'),
}) as Schema<ConfigInput<PgStoreConfig>, PgStoreConfig>
