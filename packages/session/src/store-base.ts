import { randomUUID } from 'node:crypto'
import { compareCodeUnits, describeValue } from 'dsh-core'
import { type Context, Service } from 'cordis'
import { SessionError } from './errors.ts'
import type { Durability } from './durability.ts'
import type { Session } from './session.ts'
import type { SessionStoreApi } from './store-api.ts'

/** A root id, then `~<n>` for each fork generation (`dsh-agent-loop`'s `agent.fork()` names a child `<parent>~<n>`). */
const SESSION_ID = /^(?=.{1,128}$)[A-Za-z0-9_-]+(~[1-9][0-9]*)*$/

/** What a valid id is, for the one-line refusals of a bad one. */
const SESSION_ID_RULE = 'ids are 1 to 128 characters of A-Z, a-z, 0-9, "_" and "-", and a fork child\'s adds "~<n>" to its parent\'s'

/** True for a valid session id: 1 to 128 characters of A-Z, a-z, 0-9, "_" and "-", a fork child's `~<n>` after its parent's. */
export function isSessionId(id: unknown): id is string {
  return typeof id === 'string' && SESSION_ID.test(id)
}

/**
 * What every session store shares, whatever it keeps sessions in: the `sessions` service, id checks, one
 * `Session` per id (concurrent opens share one load), and the listing of open and stored ids. A store
 * says how a session is created, loaded and closed over its storage, and which ids it holds.
 */
export abstract class SessionStoreBase extends Service implements SessionStoreApi {
  abstract readonly durability: Durability
  abstract readonly location: string
  protected readonly sessions = new Map<string, Session>()
  protected readonly pending = new Map<string, Promise<Session>>()

  constructor(ctx: Context) {
    super(ctx, 'sessions')
  }

  /** Starts a new, empty session; a random id when none is given. Fails with EXISTS for a taken id. */
  async create(id: string = randomUUID()): Promise<Session> {
    checkId(id)
    if (this.sessions.has(id) || this.pending.has(id)) {
      throw new SessionError('EXISTS', `session "${id}" already exists; use open() or openOrCreate()`)
    }
    return this.track(id, () => this.createNew(id))
  }

  /** Loads a stored session (or returns the one already open). Fails with NOT_FOUND when there is none. */
  async open(id: string): Promise<Session> {
    checkId(id)
    return this.known(id) ?? this.track(id, () => this.load(id))
  }

  /** Opens the session if it exists, otherwise creates it. */
  async openOrCreate(id: string): Promise<Session> {
    checkId(id)
    return this.known(id) ?? this.track(id, () => this.loadOrCreate(id))
  }

  /** The open session with this id, if any. */
  get(id: string): Session | undefined {
    return this.sessions.get(id)
  }

  /** Ids of open and stored sessions, in code-unit order. */
  async list(): Promise<string[]> {
    const ids = new Set(this.sessions.keys())
    for (const id of await this.storedIds()) ids.add(id)
    // Code-unit order, so the listing does not depend on the locale.
    return [...ids].sort(compareCodeUnits)
  }

  /** Waits until the session's appends are durable and forgets it; a later open() reloads it. */
  async close(id: string): Promise<void> {
    const session = this.sessions.get(id)
    if (!session) return
    this.sessions.delete(id)
    await this.release(id, session)
  }

  /** Resolves when every append queued so far, in every open session, is durable as `durability` says. */
  async flush(): Promise<void> {
    await Promise.allSettled(this.pending.values())
    await Promise.all([...this.sessions.values()].map(session => session.flushed()))
  }

  /** A new session over the storage; fails with EXISTS when the storage holds `id` already. */
  protected abstract createNew(id: string): Promise<Session>

  /** The stored session `id`; fails with NOT_FOUND when there is none. */
  protected abstract load(id: string): Promise<Session>

  /** The stored session `id`, or a new one when there is none. */
  protected async loadOrCreate(id: string): Promise<Session> {
    try {
      return await this.load(id)
    } catch (error) {
      if (!SessionError.is(error, 'NOT_FOUND')) throw error
      return this.createNew(id)
    }
  }

  /** Lets go of a session `close` has forgotten: its appends made durable, its file or connection closed. */
  protected abstract release(id: string, session: Session): Promise<void>

  /** The valid ids the storage holds. */
  protected abstract storedIds(): Promise<Iterable<string>>

  private known(id: string): Promise<Session> | undefined {
    const session = this.sessions.get(id)
    return session ? Promise.resolve(session) : this.pending.get(id)
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
}

function checkId(id: unknown): asserts id is string {
  if (!isSessionId(id)) {
    throw new SessionError('INVALID_ID', `invalid session id ${describeValue(id)}; ${SESSION_ID_RULE}`)
  }
}
