import { compareCodeUnits, describeValue } from 'dsh-core'
import { randomUUID } from 'node:crypto'
import { promises as fs } from 'node:fs'
import { join, resolve } from 'node:path'
import { Context, Logger, Service } from 'cordis'
import Schema from 'schemastery'
import { SessionError } from './errors.ts'
import { DURABILITY_MODES, type Durability } from './durability.ts'
import { JsonlWriter, checkLogFree, loadSession } from './jsonl-store.ts'
import { defaultSessionRoot } from './state-folder.ts'
import { Session } from './session.ts'
import type { SessionStoreApi } from './store-api.ts'

declare module 'cordis' {
  interface Context {
    sessions: SessionStoreApi
  }
}

export interface SessionStoreConfig {
  /** Folder of the logs; omitted means the user's state folder for this working folder (`defaultSessionRoot()`). */
  persistenceRoot?: string
  persist: boolean
  /** When appends are fsynced; omitted means `turn`. */
  durability?: Durability
}

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/
const LOG_SUFFIX = '.jsonl'

/** Creates, loads and tracks sessions; persists each one as `<persistenceRoot>/<id>.jsonl`. */
export class SessionStore extends Service implements SessionStoreApi {
  static Config: Schema<SessionStoreConfig> = Schema.object({
    persistenceRoot: Schema.string().min(1)
      .description('Directory of the session logs; a relative path is resolved against the working directory at startup. '
        + 'Omitted: <state>/dsh/sessions/<working folder key>, where <state> is $XDG_STATE_HOME or ~/.local/state.'),
    persist: Schema.boolean().default(true)
      .description('Write sessions to JSONL files; false keeps them in memory only.'),
    durability: Schema.union(DURABILITY_MODES.map((mode) => Schema.const(mode))).default('turn')
      .description('When appends are fsynced: turn (before a turn\'s end is reported), event (after every write), none (never).'),
  }) as Schema<SessionStoreConfig>

  /** Absolute directory of the session logs. */
  readonly root: string
  private readonly persist: boolean
  /** When appends are fsynced. */
  readonly durability: Durability
  private readonly writers = new Map<string, JsonlWriter>()
  private readonly sessions = new Map<string, Session>()
  private readonly pending = new Map<string, Promise<Session>>()
  private readonly logger: Logger

  constructor(ctx: Context, config: SessionStoreConfig) {
    super(ctx, 'sessions')
    this.root = config.persistenceRoot === undefined ? defaultSessionRoot() : resolve(process.cwd(), config.persistenceRoot)
    this.persist = config.persist
    this.durability = config.durability ?? 'turn'
    if (!DURABILITY_MODES.includes(this.durability)) {
      throw new SessionError('INVALID_CONFIG', `durability ${describeValue(this.durability)} is not one of ${DURABILITY_MODES.join(', ')}`)
    }
    this.logger = ctx.logger('session')
    ctx.effect(() => () => this.closeAll(), 'sessions: flush and close on dispose')
  }

  /**
   * Starts a new, empty session; a random id when none is given. Fails with EXISTS for a taken id. Writes
   * nothing: the folder and the log are created by the first append, so a session without events leaves none.
   */
  async create(id: string = randomUUID()): Promise<Session> {
    checkId(id)
    if (this.sessions.has(id) || this.pending.has(id)) {
      throw new SessionError('EXISTS', `session "${id}" already exists; use open() or openOrCreate()`)
    }
    return this.track(id, () => this.createNew(id))
  }

  /** Loads a persisted session (or returns the one already open). Fails with NOT_FOUND when there is none. */
  async open(id: string): Promise<Session> {
    checkId(id)
    const known = this.sessions.get(id) ?? this.pending.get(id)
    if (known) return known
    if (!this.persist) throw new SessionError('NOT_FOUND', `session "${id}" is not open and persistence is off`)
    return this.track(id, () => this.load(id))
  }

  /** Opens the session if it exists, otherwise creates it. */
  async openOrCreate(id: string): Promise<Session> {
    checkId(id)
    const known = this.sessions.get(id) ?? this.pending.get(id)
    if (known) return known
    return this.track(id, async () => {
      if (!this.persist) return this.createNew(id)
      try {
        return await this.load(id)
      } catch (error) {
        if (!(error instanceof SessionError) || error.code !== 'NOT_FOUND') throw error
        return this.createNew(id)
      }
    })
  }

  /** The open session with this id, if any. */
  get(id: string): Session | undefined {
    return this.sessions.get(id)
  }

  /** Ids of open and persisted sessions, in code-unit order. */
  async list(): Promise<string[]> {
    const ids = new Set(this.sessions.keys())
    if (this.persist) {
      const names = await fs.readdir(this.root).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return [] as string[]
        throw error
      })
      for (const name of names) {
        const id = name.slice(0, -LOG_SUFFIX.length)
        if (name.endsWith(LOG_SUFFIX) && SESSION_ID.test(id)) ids.add(id)
      }
    }
    // Code-unit order, so the listing does not depend on the locale.
    return [...ids].sort(compareCodeUnits)
  }

  /** Flushes a session and forgets it; a later open() reloads it from disk. */
  async close(id: string): Promise<void> {
    const session = this.sessions.get(id)
    if (!session) return
    this.sessions.delete(id)
    const writer = this.writers.get(id)
    this.writers.delete(id)
    try {
      await session.flushed()
    } finally {
      await writer?.close()
    }
  }

  /** Resolves when every append queued so far, in every session, is on disk. */
  async flush(): Promise<void> {
    await Promise.allSettled(this.pending.values())
    await Promise.all([...this.sessions.values()].map(session => session.flushed()))
  }

  private async closeAll(): Promise<void> {
    await this.flush().catch(() => {})
    const writers = [...this.writers.values()]
    this.writers.clear()
    await Promise.all(writers.map((writer) => writer.close()))
  }

  private track(id: string, task: () => Promise<Session>): Promise<Session> {
    const promise = task()
      .then((session) => {
        this.sessions.set(id, session)
        return session
      })
      .finally(() => this.pending.delete(id))
    this.pending.set(id, promise)
    return promise
  }

  private async createNew(id: string): Promise<Session> {
    if (!this.persist) return new Session(id)
    const path = this.pathOf(id)
    await checkLogFree(path)
    return new Session(id, { sink: this.writer(id, path, true) })
  }

  private load(id: string): Promise<Session> {
    const path = this.pathOf(id)
    return loadSession(id, path, { warn: message => this.logger.warn(message), writer: this.writer(id, path) })
  }

  private writer(id: string, path: string, fresh = false): JsonlWriter {
    const writer = new JsonlWriter(path, error => this.logger.error(error), this.durability, fresh)
    this.writers.set(id, writer)
    return writer
  }

  private pathOf(id: string): string {
    return join(this.root, id + LOG_SUFFIX)
  }
}

function checkId(id: unknown): asserts id is string {
  if (typeof id !== 'string' || !SESSION_ID.test(id)) {
    throw new SessionError('INVALID_ID', `invalid session id ${describeValue(id)}; ids are 1 to 128 characters of A-Z, a-z, 0-9, "_" and "-"`)
  }
}

export default SessionStore
