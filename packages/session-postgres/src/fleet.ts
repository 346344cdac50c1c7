import type pg from 'pg'
import { isSessionId, type SessionFleet, type SessionHolder } from 'dsh-session'
import type { FleetProcess, ReleaseHandler, SessionPage, SessionPageRequest } from './fleet-types.ts'
import { pgFailure } from './describe-error.ts'
import { SessionPostgresError } from './errors.ts'
import { SELF, liveHolder, processName } from './holders.ts'
import { listPage } from './listing.ts'
import { ANSWER_MARGIN_MS, type ReleaseRelay } from './release.ts'
import type { WriterPlace } from './writer.ts'

/** The longest a release request may ask the holder to wait for a turn boundary. */
export const MAX_RELEASE_WAIT_MS = 600_000

/** `sessions.fleet` of the PostgreSQL store: the listing with holders, and hand-over through the relay. */
export class PgFleet implements SessionFleet {
  readonly self: FleetProcess = SELF

  constructor(private readonly pool: pg.Pool, private readonly place: WriterPlace, private readonly relay: ReleaseRelay,
    private readonly holds: (id: string) => boolean) {}

  async page(request: SessionPageRequest): Promise<SessionPage> {
    try {
      return await listPage(this.pool, this.place.schema, request)
    } catch (error) {
      if (error instanceof SessionPostgresError) throw error
      throw pgFailure(error, this.place.target, 'listing sessions', 'READ_FAILED')
    }
  }

  async holder(id: string): Promise<(SessionHolder & { lastTime: string | undefined }) | undefined> {
    checkId(id)
    try {
      return await liveHolder(this.pool, this.place.schema, id)
    } catch (error) {
      throw pgFailure(error, this.place.target, `reading the holder of session "${id}"`, 'READ_FAILED')
    }
  }

  onReleaseRequest(handler: ReleaseHandler): () => void {
    return this.relay.onRequest(handler)
  }

  async requestRelease(id: string, options: { waitMs: number; holder?: FleetProcess }): Promise<{ holder: SessionHolder }> {
    checkId(id)
    const { waitMs } = options
    if (!Number.isInteger(waitMs) || waitMs < 0 || waitMs > MAX_RELEASE_WAIT_MS) {
      throw new SessionPostgresError('BAD_REQUEST', `release wait ${JSON.stringify(waitMs)} is not an integer number of ms from 0 to ${MAX_RELEASE_WAIT_MS}`)
    }
    if (this.holds(id)) {
      throw new SessionPostgresError('BAD_REQUEST', `session "${id}" is held by this process (${processName(SELF)}): close it instead of asking for its release`)
    }
    const live = await this.holder(id)
    const named = options.holder
    if (named && (!live || live.host !== named.host || live.pid !== named.pid)) {
      throw new SessionPostgresError('NOT_HELD', `process ${processName(named)} does not hold session "${id}": `
        + (live ? `its holder is ${processName(live)}` : 'no live process holds it (session/load takes it)'))
    }
    if (!live) throw new SessionPostgresError('NOT_HELD', `session "${id}" is not held by any live process: there is nothing to release (session/load takes it)`)
    const answer = await this.relay.ask(id, live, waitMs)
    if (answer?.released) return { holder: live }
    if (answer) throw new SessionPostgresError('KEPT', `process ${processName(live)} keeps session "${id}": ${answer.reason}`)
    // silence: released meanwhile by other means, or the holder keeps it; never taken by force
    const still = await this.holder(id)
    if (!still || still.pid !== live.pid || still.host !== live.host) return { holder: live }
    throw new SessionPostgresError('NO_ANSWER', `process ${processName(live)} did not answer the release request for session "${id}" within `
      + `${waitMs} ms (+${ANSWER_MARGIN_MS} ms for the round trip); it keeps the session: a release is never forced`)
  }
}

function checkId(id: unknown): asserts id is string {
  if (!isSessionId(id)) {
    throw new SessionPostgresError('BAD_REQUEST', `invalid session id ${JSON.stringify(id)}; ids are 1 to 128 characters of A-Z, a-z, 0-9, "_" and "-", and a fork child's adds "~<n>" to its parent's`)
  }
}
