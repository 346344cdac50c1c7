import type { Durability } from './durability.ts'
import type { SessionFleet } from './fleet.ts'
import type { Session } from './session.ts'

/**
 * What every session store offers under the ctx key `sessions` (the JSONL store here, PostgreSQL in
 * dsh-session-postgres). Resuming a session anywhere needs only `open(id)`.
 */
export interface SessionStoreApi {
  /**
   * The moment an append becomes durable (`flush()` and a session's `flushed()` wait for at least this):
   * `turn` by the time a turn's end is reported, `event` after each write batch, `none` never (handed to
   * the operating system only).
   */
  readonly durability: Durability
  /**
   * Where the sessions are kept, as a message to a person names it (a folder, a database without its
   * password); front doors use it in listings and errors.
   */
  readonly location: string
  /**
   * Starts a new, empty session; a random id when none is given. Fails with EXISTS when the id is open in
   * this store or stored. Persists nothing: the session is stored with its first append, so one that gets
   * no event leaves nothing behind (another store does not list it, cannot open it, and may create it).
   */
  create(id?: string): Promise<Session>
  /** Loads a persisted session (or returns the one already open). Fails with NOT_FOUND when there is none. */
  open(id: string): Promise<Session>
  /** Opens the session if it exists, otherwise creates it. */
  openOrCreate(id: string): Promise<Session>
  /** The open session with this id, if any. */
  get(id: string): Session | undefined
  /** Ids of open and persisted sessions, in code-unit order. */
  list(): Promise<string[]>
  /** Waits until the session's appends are durable and forgets it; a later open() reloads it. */
  close(id: string): Promise<void>
  /** Resolves when every append queued so far, in every open session, is durable as `durability` says. */
  flush(): Promise<void>
  /**
   * Present on a store several processes share (PostgreSQL): a listing that names each session's holder,
   * and hand-over between processes. Absent on a store of one process.
   */
  readonly fleet?: SessionFleet
}
