// The types the front doors use, read off the harness's own signatures (one home for both doors): a door names
// them from dsh-harness and never a package under the harness.
import type { Harness } from './service.ts'
import type { noticeLocale } from 'dsh-agent-loop'

/** An agent, as `harness.openAgent()` returns it. */
export type Agent = Awaited<ReturnType<Harness['openAgent']>>
type PromptOptions = NonNullable<Parameters<Agent['prompt']>[1]>
/** What a turn resolves to. */
export type TurnResult = Awaited<ReturnType<Agent['prompt']>>
/** How a turn ended. */
export type TurnEndReason = TurnResult['reason']
/** One update of a running turn (`onUpdate`). */
export type AgentUpdate = Parameters<NonNullable<PromptOptions['onUpdate']>>[0]
/** How the door answers a permission question (`askPermission`), the question and its answers. */
export type PermissionAsker = NonNullable<PromptOptions['askPermission']>
export type PermissionRequest = Parameters<PermissionAsker>[0]
export type PermissionAnswer = PermissionRequest['options'][number]
export type PermissionReply = Exclude<Awaited<ReturnType<PermissionAsker>>, PermissionAnswer>
/** One logged event of a session. */
export type SessionEvent = ReturnType<Agent['session']['events']>[number]
/** The language of the door's notices. */
export type NoticeLocale = ReturnType<typeof noticeLocale>
/** The kind of a tool (ACP's `kind`). */
export type ToolKind = ReturnType<Harness['toolKind']>
/** One tool source's status (`harness.onSourceStatus`). */
export type ToolSourceStatus = ReturnType<Harness['downSources']>[number]
/** One stored session, as `harness.sessionSummaries()` lists it. */
export type SessionSummary = Awaited<ReturnType<Harness['sessionSummaries']>>[number]
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
