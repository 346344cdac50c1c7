import { SessionPostgresError, type SessionPostgresErrorCode } from './errors.ts'
import type { PgTarget } from './target.ts'

const REFUSED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH'])
const UNKNOWN_HOST = new Set(['ENOTFOUND', 'EAI_AGAIN'])
const LOST = new Set(['ECONNRESET', 'EPIPE', '57P01', '57P02', '57P03', '08006', '08003'])

/** True when the error means the connection itself is gone (not a refused statement). */
export function isConnectionLoss(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string }
  return LOST.has(code ?? '') || /Connection terminated|terminating connection|not queryable|closed/i.test(message ?? '')
}

// what pg's Client and Pool say when connectionTimeoutMillis passed
function isConnectTimeout(error: unknown): boolean {
  const message = (error as { message?: unknown } | undefined)?.message
  return typeof message === 'string' && /connection timeout|timeout exceeded when trying to connect|timeout expired/i.test(message)
}

/**
 * One line for a failed connection or statement: refused, unknown host, bad credentials, lost
 * connection, or what the server said. The password is scrubbed from everything.
 */
export function pgFailure(error: unknown, target: PgTarget, doing: string, fallback: SessionPostgresErrorCode, connectTimeoutMs?: number): SessionPostgresError {
  const { code, message = String(error) } = error as { code?: string; message?: string }
  let text: string
  let kind: SessionPostgresErrorCode = fallback
  if (connectTimeoutMs !== undefined && isConnectTimeout(error)) {
    kind = 'CONNECT'
    text = `cannot connect to PostgreSQL at ${target.safe}: no answer within ${connectTimeoutMs} ms (connectTimeoutMs)`
  } else if (code && REFUSED.has(code)) {
    kind = 'CONNECT'
    text = `cannot connect to PostgreSQL at ${target.safe}: connection refused (is the server running and listening there?)`
  } else if (code && UNKNOWN_HOST.has(code)) {
    kind = 'CONNECT'
    text = `cannot connect to PostgreSQL at ${target.safe}: unknown host`
  } else if (code === '28P01' || code === '28000') {
    kind = 'AUTH'
    text = `PostgreSQL at ${target.safe} refused the login of user "${target.user}": authentication failed (${message})`
  } else if (code === '3D000') {
    kind = 'CONNECT'
    text = `PostgreSQL at ${target.safe}: ${message}`
  } else if (isConnectionLoss(error)) {
    text = `lost the connection to PostgreSQL at ${target.safe} while ${doing} (${message})`
  } else {
    text = `PostgreSQL at ${target.safe} failed while ${doing}: ${message}`
  }
  return new SessionPostgresError(kind, target.scrub(text.replace(/\s*\n\s*/g, ' ')), { cause: error })
}
