// The types of the harness only this door uses, read off dsh-harness's signatures (the ones both doors use are
// dsh-harness's own).
import type { Agent, Harness, PermissionAnswer, PermissionAsker } from 'dsh-harness'

/** What a turn resolves to, and how it ended. */
export type TurnResult = Awaited<ReturnType<Agent['prompt']>>
export type TurnEndReason = TurnResult['reason']
/** A permission question answered otherwise than by one of its options (cancelled). */
export type PermissionReply = Exclude<Awaited<ReturnType<PermissionAsker>>, PermissionAnswer>
/** The kind of a tool (ACP's `kind`). */
export type ToolKind = ReturnType<Harness['toolKind']>
/** One tool source's status (`harness.onSourceStatus`). */
export type ToolSourceStatus = ReturnType<Harness['downSources']>[number]
/** The fleet view (`harness.fleet`) of a store several processes share, and what it speaks. */
export type SessionFleet = NonNullable<Harness['fleet']>
export type FleetProcess = SessionFleet['self']
type SessionPage = Awaited<ReturnType<SessionFleet['page']>>
export type FleetSession = SessionPage['sessions'][number]
export type SessionPosition = NonNullable<SessionPage['next']>
type ReleaseHandler = Parameters<SessionFleet['onReleaseRequest']>[0]
export type ReleaseRequest = Parameters<ReleaseHandler>[0]
export type ReleaseAnswer = Awaited<NonNullable<ReturnType<ReleaseHandler>>>
/** What `harness.attachMcp()` returns, and one server entry it takes. */
export type McpAttachment = ReturnType<Harness['attachMcp']>
export type ServerEntry = Parameters<Harness['attachMcp']>[1][string]
/** One update of a child session, as `harness.onChildUpdate` hears it. */
export type ChildUpdate = Parameters<Parameters<Harness['onChildUpdate']>[1]>[0]
