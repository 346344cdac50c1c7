import { describeValue, type ConfigInput } from 'dsh-core'
import { promises as fs } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Context, Logger } from 'cordis'
import Schema from 'schemastery'
import { SessionError } from './errors.ts'
import { DURABILITY_MODES, type Durability } from './durability.ts'
import { JsonlWriter, checkLogFree, loadSession } from './jsonl-store.ts'
import { defaultSessionRoot } from './state-folder.ts'
import { Session } from './session.ts'
import type { SessionStoreApi } from './store-api.ts'
import { SessionStoreBase, isSessionId } from './store-base.ts'

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

const LOG_SUFFIX = '.jsonl'
const LOCK_SUFFIX = '.lock'

/** Creates, loads and tracks sessions; persists each one as `<persistenceRoot>/<id>.jsonl`. */
export class SessionStore extends SessionStoreBase {
  static Config: Schema<ConfigInput<SessionStoreConfig>, SessionStoreConfig> = Schema.object({
    persistenceRoot: Schema.string().min(1)
      .description('Directory of the session logs; a relative path is resolved against the working directory at startup. '
        + 'Omitted: <state>/dsh/sessions/<working folder key>, where <state> is $XDG_STATE_HOME or ~/.local/state.'),
    persist: Schema.boolean().default(true)
      .description('Write sessions to JSONL files; false keeps them in memory only.'),
    durability: Schema.union(DURABILITY_MODES.map((mode) => Schema.const(mode))).default('turn')
      .description('When appends are fsynced: turn (before a turn\'s end is reported), event (after every write), none (never).'),
  }) as Schema<ConfigInput<SessionStoreConfig>, SessionStoreConfig>

  /** Absolute directory of the session logs. */
  readonly root: string
  private readonly persist: boolean
  /** When appends are fsynced. */
  readonly durability: Durability
  /** The folder of the logs, or that they stay in memory. */
  readonly location: string
  private readonly writers = new Map<string, JsonlWriter>()
  private readonly logger: Logger
  /** Loader warnings already given, so that the same torn tail is told once. */
  private readonly warned = new Set<string>()

  constructor(ctx: Context, config: SessionStoreConfig) {
    super(ctx)
    this.root = config.persistenceRoot === undefined ? defaultSessionRoot() : resolve(process.cwd(), config.persistenceRoot)
    this.persist = config.persist
    this.durability = config.durability ?? 'turn'
    this.location = this.persist ? this.root : 'memory (persist: false)'
    if (!DURABILITY_MODES.includes(this.durability)) {
      throw new SessionError('INVALID_CONFIG', `durability ${describeValue(this.durability)} is not one of ${DURABILITY_MODES.join(', ')}`)
    }
    this.logger = ctx.logger('session')
    ctx.effect(() => () => this.closeAll(), 'sessions: flush and close on dispose')
  }

  protected async storedIds(): Promise<string[]> {
    if (!this.persist) return []
    const names = await fs.readdir(this.root).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [] as string[]
      throw error
    })
    return names.filter((name) => name.endsWith(LOG_SUFFIX)).map((name) => name.slice(0, -LOG_SUFFIX.length)).filter(isSessionId)
  }

  // flushes the session and closes its file; a later open() reloads it from disk
  protected async release(id: string, session: Session): Promise<void> {
    const writer = this.writers.get(id)
    this.writers.delete(id)
    try {
      await session.flushed()
    } finally {
      await writer?.close()
    }
  }

  private async closeAll(): Promise<void> {
    await this.flush().catch(() => {})
    const writers = [...this.writers.values()]
    this.writers.clear()
    await Promise.all(writers.map((writer) => writer.close()))
  }

  protected async createNew(id: string): Promise<Session> {
    if (!this.persist) return new Session(id)
    const path = this.pathOf(id)
    await checkLogFree(path)
    return new Session(id, { sink: this.writer(id, path, true) })
  }

  protected async load(id: string): Promise<Session> {
    if (!this.persist) throw new SessionError('NOT_FOUND', `session "${id}" is not open and persistence is off`)
    const path = this.pathOf(id)
    const writer = this.writer(id, path)
    try {
      return await loadSession(id, path, { warn: message => this.warnOnce(message), writer })
    } catch (error) {
      // a log that cannot be opened keeps neither its writer nor its lock
      if (this.writers.get(id) === writer) this.writers.delete(id)
      await writer.close()
      throw error
    }
  }

  /**
   * A loader's warning (a torn last line) once per store: listing the sessions and then opening one, or
   * reopening a session after each failed write, reads the same tail again and has nothing new to say.
   */
  private warnOnce(message: string): void {
    if (this.warned.has(message)) return
    this.warned.add(message)
    this.logger.warn(message)
  }

  private writer(id: string, path: string, fresh = false): JsonlWriter {
    const writer = new JsonlWriter(path, {
      sessionId: id,
      lockPath: join(this.root, id + LOCK_SUFFIX),
      // the failure reaches whoever appends or flushes next (the loop ends the turn with it): not logged twice
      onFailure: error => this.logger.debug(error.message),
      durability: this.durability,
      fresh,
    })
    this.writers.set(id, writer)
    return writer
  }

  private pathOf(id: string): string {
    return join(this.root, id + LOG_SUFFIX)
  }
}

export default SessionStore
