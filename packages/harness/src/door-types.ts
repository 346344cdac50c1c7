// The types both front doors use, read off the harness's own signatures (one home for both doors): a door names
// them from dsh-harness and never a package under the harness. A type only one door uses is read off the same
// signatures in that door (apps/acp-demo/src/harness-types.ts).
import type { Harness } from './service.ts'
import type { noticeLocale } from 'dsh-agent-loop'

/** An agent, as `harness.openAgent()` returns it. */
export type Agent = Awaited<ReturnType<Harness['openAgent']>>
type PromptOptions = NonNullable<Parameters<Agent['prompt']>[1]>
/** One update of a running turn (`onUpdate`). */
export type AgentUpdate = Parameters<NonNullable<PromptOptions['onUpdate']>>[0]
/** How the door answers a permission question (`askPermission`), the question and its answers. */
export type PermissionAsker = NonNullable<PromptOptions['askPermission']>
export type PermissionRequest = Parameters<PermissionAsker>[0]
export type PermissionAnswer = PermissionRequest['options'][number]
/** One logged event of a session. */
export type SessionEvent = ReturnType<Agent['session']['events']>[number]
/** The language of the door's notices. */
export type NoticeLocale = ReturnType<typeof noticeLocale>
/** One stored session, as `harness.sessionSummaries()` lists it. */
export type SessionSummary = Awaited<ReturnType<Harness['sessionSummaries']>>[number]
