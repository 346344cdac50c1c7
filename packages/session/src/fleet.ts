/**
 * The fleet facet of a session store shared by several processes (dsh-session-postgres): a listing of every
 * stored session, open or not, that names the process holding each, and hand-over between processes.
 * Optional: a store of one process (the JSONL files) has none.
 */

/** A process of the fleet: its host name and operating-system process id. */
export interface FleetProcess {
  host: string
  pid: number
}

/** The live holder of a session: the process writing it, since when (ISO). */
export interface SessionHolder extends FleetProcess {
  since: string
}

/** Where a listing page ends; the next page starts after it. Plain data: a front door signs it into its cursor. */
export interface SessionPosition {
  /** The session's creation time, ISO with microseconds (UTC). */
  created: string
  id: string
}

/** One stored session as a fleet listing shows it, read without its lock. */
export interface FleetSession {
  id: string
  /** When the session was stored (ISO). */
  createdAt: string
  /** Time of its last event (ISO), or undefined for a session without events. */
  lastTime: string | undefined
  /** The first user message among its first events, or undefined. */
  firstPrompt: string | undefined
  /** Count of `turn/start` events, when the page was asked with `turns: true`. */
  turns?: number
  /** The first event (its `data`) of each type asked in `keep`, found among the session's first events. */
  kept: Record<string, unknown>
  /** The live process holding the session (this one included), or undefined when no process holds it. */
  holder?: SessionHolder
  /** Where this session stands in the listing's order, to page on after it. */
  position: SessionPosition
}

export interface SessionPageRequest {
  /** Sessions per page, 1 to 1000. */
  limit: number
  /** The position the previous page ended at; absent for the first page. */
  after?: SessionPosition
  /** Event types whose first occurrence (its data) each listed session carries in `kept`. */
  keep?: readonly string[]
  /** Only sessions whose first `filter.type` event has `filter.field` equal to `filter.value` (say, an ACP cwd). */
  filter?: { type: string; field: string; value: string }
  /** Count each session's turns (reads every event of each listed session). */
  turns?: boolean
}

/** One page, newest stored first; `next` when more follow. */
export interface SessionPage {
  sessions: FleetSession[]
  next?: SessionPosition
}

/** A request, from another process, that this process let go of a session it holds. */
export interface ReleaseRequest {
  sessionId: string
  /** The process asking (the one whose client wants the session). */
  from: FleetProcess
  /** How long the holder may wait for a turn boundary before it answers that it keeps the session. */
  waitMs: number
}

/** What a holder answers: released, or kept with the reason in one line. */
export type ReleaseAnswer = { released: true } | { released: false; reason: string }

/**
 * Decides a release request for a session this process holds. Returns undefined when the handler does not
 * serve that session (another ACP connection may); the first answer is sent.
 */
export type ReleaseHandler = (request: ReleaseRequest) => Promise<ReleaseAnswer> | undefined

export interface SessionFleet {
  /** This process as the fleet names it. */
  readonly self: FleetProcess
  /** One page of every stored session, newest stored first, each with its live holder, in one query. */
  page(request: SessionPageRequest): Promise<SessionPage>
  /** The live holder of `id`, with the time of its last event, or undefined when no process holds it. */
  holder(id: string): Promise<(SessionHolder & { lastTime: string | undefined }) | undefined>
  /**
   * Asks the process holding `id` to release it, and waits for its answer (at most `waitMs` plus a margin for
   * the round trip). `holder`, when given, must be the live holder. Resolves when released; fails with a
   * coded error otherwise (not held, another holder, kept, no answer); never takes the session by force.
   */
  requestRelease(id: string, options: { waitMs: number; holder?: FleetProcess }): Promise<{ holder: SessionHolder }>
  /** Serves release requests for sessions this process holds; returns the disposer. */
  onReleaseRequest(handler: ReleaseHandler): () => void
}
