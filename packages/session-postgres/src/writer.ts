import pg from 'pg'
import { WriteQueue } from 'dsh-session'
import { pgFailure } from './describe-error.ts'
import { SessionPostgresError } from './errors.ts'
import { busyError } from './busy.ts'
import { forgetHolder, liveHolder, recordHolder } from './holders.ts'
import { lockKey } from './lock-key.ts'
import { ident } from './schema.ts'
import type { PgTarget } from './target.ts'

export interface WriterPlace {
  target: PgTarget
  schema: string
  applicationName: string
  connectTimeoutMs: number
  onFailure(error: SessionPostgresError): void
}

/**
 * The one writer of one session: a dedicated connection holding the session's advisory lock (so the
 * lock dies with the connection) and the ordered write queue of events. Lines queued while an INSERT is
 * in flight go out together in the next one; each INSERT is its own committed transaction.
 */
export class SessionWriter extends WriteQueue {
  private closed = false
  /** Seq of the next event to insert; set by the loader once it has read the log. */
  nextSeq = 1
  /** The session has no row yet: the first batch inserts it in the same statement as its events. */
  private newSession = false

  private constructor(readonly sessionId: string, private readonly client: pg.Client, private readonly place: WriterPlace) {
    super()
    // An idle connection that dies emits 'error'; without a listener the whole process would crash.
    client.on('error', (error) => this.fail(error, 'idle'))
  }

  /** Connects and takes the session's lock; fails with BUSY when another connection holds it. */
  static async hold(sessionId: string, place: WriterPlace): Promise<SessionWriter> {
    const client = new pg.Client({
      connectionString: place.target.url,
      application_name: place.applicationName,
      connectionTimeoutMillis: place.connectTimeoutMs,
    })
    client.on('error', () => {})
    try {
      await client.connect()
      const key = lockKey(place.schema, sessionId)
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key])
      if (!rows[0]?.ok) throw busyError(sessionId, place, await liveHolder(client, place.schema, sessionId).catch(() => undefined))
      await recordHolder(client, place.schema, sessionId, key)
    } catch (error) {
      await client.end().catch(() => {})
      if (SessionPostgresError.is(error)) throw error
      throw pgFailure(error, place.target, `opening session "${sessionId}"`, 'CONNECT', place.connectTimeoutMs)
    }
    return new SessionWriter(sessionId, client, place)
  }

  /** Marks a session that is not stored yet: its row goes in with the first batch of events. */
  storeRowFirst(): void {
    this.newSession = true
  }

  /** The held connection, for reading the session under its lock. */
  get connection(): pg.Client {
    return this.client
  }

  override write(line: string): void {
    if (this.closed && !this.failure) throw new SessionPostgresError('WRITE_FAILED', `session "${this.sessionId}" was closed; open it again to append`)
    super.write(line.endsWith('\n') ? line.slice(0, -1) : line)
  }

  /** Every INSERT commits, so a written line is a durable one. */
  async flushed(): Promise<void> {
    await this.allWritten()
  }

  /** Waits for queued appends (best effort), then ends the connection, which releases the lock. */
  async release(): Promise<void> {
    if (this.closed) return
    try {
      await this.flushed()
    } finally {
      this.closed = true
      if (!this.failure) await forgetHolder(this.client, this.place.schema, this.sessionId).catch(() => {})
      await this.client.end().catch(() => {})
    }
  }

  // Events appended in the same turn of the event loop (the agent loop logs a turn's start, its user message
  // and its first step back to back) wait for it to end and go out in one INSERT: one round trip, one commit.
  protected override gather(): Promise<void> {
    return new Promise((resolve) => setImmediate(resolve))
  }

  protected async writeBatch(batch: string[]): Promise<void> {
    const s = ident(this.place.schema)
    const events = `INSERT INTO ${s}.events (session_id, seq, body) SELECT $1, s, b::json FROM unnest($2::integer[], $3::text[]) AS t (s, b)`
    const seqs = batch.map((_, i) => this.nextSeq + i)
    // one statement, so the session's row and its first events commit together or not at all
    const sql = this.newSession ? `WITH row AS (INSERT INTO ${s}.sessions (id) VALUES ($1)) ${events}` : events
    // named, so the connection parses and plans each of the two statements once, not on every batch
    const name = `dsh-append${this.newSession ? '-first' : ''}`
    await this.client.query({ name, text: sql, values: [this.sessionId, seqs, batch] })
    this.newSession = false
    this.nextSeq += batch.length
  }

  protected fail(error: unknown, when: 'idle' | 'append' = 'append'): void {
    if (this.failure || this.closed) return
    const cause = pgFailure(error, this.place.target, when === 'idle' ? `holding session "${this.sessionId}"` : `appending to session "${this.sessionId}"`, 'WRITE_FAILED')
    const failure = new SessionPostgresError('WRITE_FAILED', `session store postgresql: cannot persist session "${this.sessionId}": `
      + `${cause.message}; the session refuses further appends (close and open it again once the database is back)`, { cause: error })
    this.failure = failure
    this.place.onFailure(failure)
  }
}
