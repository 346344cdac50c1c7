import { SessionPostgresError } from './errors.ts'

/** A parsed connection URL: what to connect with, and how to name it without its password. */
export interface PgTarget {
  url: string
  /** `postgres://user@host:port/database`, safe for logs and errors. */
  safe: string
  user: string
  /** Removes the password (raw and URL-decoded) from any text. */
  scrub(text: string): string
}

/** Reads the URL from `url` or from the variable named by `urlEnv`; fails with CONFIG naming the bad value. */
export function resolveTarget(config: { url?: string; urlEnv?: string }, env: NodeJS.ProcessEnv = process.env): PgTarget {
  const given = [config.url !== undefined && 'url', config.urlEnv !== undefined && 'urlEnv'].filter(Boolean)
  if (given.length !== 1) {
    throw new SessionPostgresError('CONFIG', given.length
      ? 'set only one of "url" and "urlEnv", not both'
      : 'no database: set "urlEnv" (the name of a variable holding a postgres:// URL) or "url"')
  }
  let raw = config.url
  if (config.urlEnv !== undefined) {
    raw = env[config.urlEnv]
    if (raw === undefined || raw === '') {
      throw new SessionPostgresError('CONFIG', `urlEnv names the variable "${config.urlEnv}", which is not set; set it to a postgres://user:password@host:port/database URL`)
    }
  }
  let parsed: URL
  try {
    parsed = new URL(raw!)
  } catch {
    throw new SessionPostgresError('CONFIG', `the database URL${config.urlEnv ? ` in ${config.urlEnv}` : ''} is not a URL; expected postgres://user:password@host:port/database`)
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new SessionPostgresError('CONFIG', `the database URL has the scheme "${parsed.protocol.slice(0, -1)}"; valid schemes: postgres, postgresql`)
  }
  const secrets = [parsed.password, safeDecode(parsed.password)].filter(secret => secret.length > 0)
  const user = safeDecode(parsed.username) || '(default user)'
  const safe = `postgres://${parsed.username ? `${parsed.username}@` : ''}${parsed.host}${parsed.pathname}`
  return {
    url: raw!,
    safe,
    user,
    scrub(text) {
      let out = text
      for (const secret of secrets) out = out.split(secret).join('***')
      return out
    },
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}
