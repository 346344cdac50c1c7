// The parts of dsh-session's fleet contract (\`SessionFleet\`) this store implements, named once from its signatures.
import type { SessionFleet } from 'dsh-session'

/** A process of the fleet: its host name and operating-system process id. */
export type FleetProcess = SessionFleet['self']
export type SessionPageRequest = Parameters<SessionFleet['page']>[0]
/** One page of the listing, newest stored first; \`next\` when more follow. */
export type SessionPage = Awaited<ReturnType<SessionFleet['page']>>
/** One stored session as a fleet listing shows it. */
export type FleetSession = SessionPage['sessions'][number]
/** Where a listing page ends. */
export type SessionPosition = FleetSession['position']
/** Decides a release request for a session this process holds. */
export type ReleaseHandler = Parameters<SessionFleet['onReleaseRequest']>[0]
export type ReleaseRequest = Parameters<ReleaseHandler>[0]
export type ReleaseAnswer = Awaited<NonNullable<ReturnType<ReleaseHandler>>>
