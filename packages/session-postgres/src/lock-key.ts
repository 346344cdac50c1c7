import { createHash } from 'node:crypto'

/** A 64-bit advisory-lock key for a name in a schema, as the decimal text PostgreSQL takes for a bigint. */
export function lockKey(schema: string, name: string): string {
  return createHash('sha256').update(`dsh-session-postgres\0${schema}\0${name}`).digest().readBigInt64BE(0).toString()
}
