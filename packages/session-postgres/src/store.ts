import pg from 'pg'
import { type Context, type Logger, Service } from 'cordis'
import { Session, SessionError, SessionStoreBase } from 'dsh-session'
import { DEFAULT_CONNECT_TIMEOUT_MS, type PgStoreConfig, PgStoreConfigSchema } from './config.ts'
import { pgFailure } from './describe-error.ts'
import { SessionPostgresError } from './errors.ts'
import { PgFleet } from './fleet.ts'
import { ReleaseRelay } from './release.ts'
import { loadSession } from './load.ts'
import { checkSchemaName, ident, migrate } from './schema.ts'
import { type PgTarget, resolveTarget } from './target.ts'
import { SessionWriter, type WriterPlace } from './writer.ts'

/**
 * The session store on PostgreSQL, under the same ctx key (`sessions`) and API as the JSONL store.
 * Each open session holds a dedicated connection with the session's advisory lock: one writer per
 * session across every process on the database.
 */
export class PgSessionStore extends SessionStoreBase {
  static Config = PgStoreConfigSchema

  /** The database, named without its password. */
  readonly target: PgTarget
  readonly schema: string
  /** The database without its password, and the schema. */
  readonly location: string
  /** Every write batch is one committed transaction, so each event is durable once its batch commits. */
  readonly durability = 'event' as const
  private readonly pool: pg.Pool
  private readonly place: WriterPlace
  private readonly writers = new Map<string, SessionWriter>()
  private readonly relay: ReleaseRelay
  /** The fleet: every stored session with its live holder, and hand-over between processes (see the README). */
  readonly fleet: PgFleet
  private readonly logger: Logger
  /** Aborted on dispose: a first connection still in flight then stops waiting (a silent server). */
  private readonly stopped = new AbortController()
  /** True while a connection attempt may still be in flight, which would hold `pool.end()` until it times out. */
  private connecting = false

  constructor(ctx: Context, config: PgStoreConfig) {
    super(ctx)
    this.logger = ctx.logger('session-postgres')
    this.schema = checkSchemaName(config.schema)
    this.target = resolveTarget(config)
    this.location = `PostgreSQL at ${this.target.safe}, schema "${this.schema}"`
    this.place = {
      target: this.target,
      schema: this.schema,
      applicationName: config.applicationName,
      connectTimeoutMs: config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      // Not logged here: the failure reaches whoever appends or flushes next (the loop ends the turn with it, or,
      // for a connection lost while idle, says so in one info line as it reopens the session), so a user reads it once.
      onFailure: (error) => this.logger.debug(error.message),
    }
    this.pool = new pg.Pool({
      connectionString: this.target.url,
      max: config.poolSize,
      application_name: config.applicationName,
      connectionTimeoutMillis: config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    })
    this.relay = new ReleaseRelay(this.place, (id) => this.writers.has(id), (text) => this.logger.debug(text))
    this.fleet = new PgFleet(this.pool, this.place, this.relay, (id) => this.writers.has(id))
    // the pool drops a connection that died while idle and connects anew when asked: nothing for a user to do
    this.pool.on('error', (error) => this.logger.debug(pgFailure(error, this.target, 'idling in the pool', 'READ_FAILED').message))
    ctx.effect(() => () => {
      this.stopped.abort()
      return this.shutdown()
    }, 'sessions: flush and release on dispose')
  }

  /** Connects and creates or migrates the schema before `sessions` is offered to anyone. */
  async [Service.init](): Promise<void> {
    let client: pg.PoolClient
    const connecting = this.pool.connect()
    this.connecting = true
    connecting.finally(() => { this.connecting = false }).catch(() => {})
    // Cordis runs the dispose effects only once this init settles; a dispose that began meanwhile (the app
    // gave up at its startup timeout) shows as the fiber's uid cleared (inactive), which is checked while waiting.
    const watch = setInterval(() => { if (this.ctx.fiber.uid === null) this.stopped.abort() }, 100)
    try {
      client = await untilAborted(connecting, this.stopped.signal)
    } catch (error) {
      // disposed while connecting (the app gave up at its startup timeout): nothing left to report
      if (this.stopped.signal.aborted) {
        connecting.then((late) => late.release(), () => {})
        return
      }
      throw pgFailure(error, this.target, 'connecting', 'CONNECT', this.place.connectTimeoutMs)
    } finally {
      clearInterval(watch)
    }
    try {
      const version = await migrate(client, this.schema)
      this.logger.info(`sessions in PostgreSQL at ${this.target.safe}, schema "${this.schema}" (version ${version})`)
    } catch (error) {
      if (SessionPostgresError.is(error)) throw error
      throw pgFailure(error, this.target, `preparing schema "${this.schema}"`, 'SCHEMA')
    } finally {
      client.release()
    }
  }

  protected async storedIds(): Promise<string[]> {
    try {
      const { rows } = await this.pool.query<{ id: string }>(`SELECT id FROM ${ident(this.schema)}.sessions`)
      return rows.map(row => row.id)
    } catch (error) {
      throw pgFailure(error, this.target, 'listing sessions', 'READ_FAILED')
    }
  }

  // waits for the session's appends, then ends its connection, releasing its lock
  protected async release(id: string): Promise<void> {
    const writer = this.writers.get(id)
    this.writers.delete(id)
    await writer?.release()
  }

  private async shutdown(): Promise<void> {
    await Promise.allSettled(this.pending.values())
    await this.relay.stop()
    const writers = [...this.writers.values()]
    this.writers.clear()
    this.sessions.clear()
    const released = await Promise.allSettled(writers.map(writer => writer.release()))
    for (const result of released) if (result.status === 'rejected') this.logger.error((result.reason as Error).message)
    // a connection attempt still in flight would hold pool.end() until its connectTimeoutMs: not awaited then
    const ended = this.pool.end().catch(() => {})
    if (!this.connecting) await ended
  }

  protected createNew(id: string): Promise<Session> {
    return this.acquire(id, 'create')
  }

  protected load(id: string): Promise<Session> {
    return this.acquire(id, 'open')
  }

  // one lock for the look and the insert, so no other process can create the session in between
  protected override loadOrCreate(id: string): Promise<Session> {
    return this.acquire(id, 'either')
  }

  /**
   * Takes the session's lock, then creates it (`create`), loads it (`open`) or whichever applies
   * (`either`), all under that one lock, so no other process can create or write it in between.
   */
  private async acquire(id: string, mode: 'create' | 'open' | 'either'): Promise<Session> {
    const writer = await SessionWriter.hold(id, this.place)
    try {
      let session: Session | undefined
      if (mode !== 'open') {
        // Only checked: the row is inserted with the first events (see SessionWriter), so a session that
        // gets none leaves nothing; the lock keeps every other process from creating it meanwhile.
        const found = await writer.connection.query(`SELECT 1 FROM ${ident(this.schema)}.sessions WHERE id = $1`, [id])
        if (found.rowCount === 0) {
          writer.storeRowFirst()
          session = new Session(id, { sink: writer })
        } else if (mode === 'create') {
          throw new SessionError('EXISTS', `session "${id}" already exists in schema "${this.schema}" at ${this.target.safe}; use open() or openOrCreate()`)
        }
      }
      // `either` has just seen the row, under the lock: the loader need not look again
      session ??= await loadSession(writer, this.schema, this.target, mode === 'either')
      this.writers.set(id, writer)
      // a holder listens for release requests; without the listener it only keeps its sessions longer
      this.relay.listen().catch((error) => this.logger.debug(`cannot listen for release requests: ${(error as Error).message}`))
      return session
    } catch (error) {
      await writer.release().catch(() => {})
      if (SessionError.is(error) || SessionPostgresError.is(error)) throw error
      throw pgFailure(error, this.target, `opening session "${id}"`, 'WRITE_FAILED')
    }
  }
}

/** `promise`, or a rejection as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

export default PgSessionStore
