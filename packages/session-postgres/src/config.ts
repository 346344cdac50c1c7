import Schema from 'schemastery'

export interface PgStoreConfig {
  url?: string
  urlEnv?: string
  poolSize: number
  schema: string
  applicationName: string
}

/** Config of the PostgreSQL store: exactly one of `url` and `urlEnv`, checked when the store starts. */
export const PgStoreConfigSchema: Schema<PgStoreConfig> = Schema.object({
  url: Schema.string().min(1)
    .description('postgres://user:password@host:port/database. Prefer urlEnv: a password in an app file ends up in version control.'),
  urlEnv: Schema.string().pattern(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .description('Name of the environment variable holding the URL.'),
  poolSize: Schema.natural().min(1).max(100).default(4)
    .description('Connections for listing and schema work; each open session holds one more connection of its own.'),
  schema: Schema.string().pattern(/^[a-z_][a-z0-9_]{0,62}$/).default('dsh')
    .description('PostgreSQL schema of the tables (lower case letters, digits, "_"); created on start.'),
  applicationName: Schema.string().min(1).max(63).default('dsh-session')
    .description('application_name of the connections, as pg_stat_activity shows them.'),
}) as Schema<PgStoreConfig>
