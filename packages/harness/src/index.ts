export { default } from './plugin.ts'
export { Config } from './config.ts'
export { Harness } from './service.ts'
export { HarnessError } from './errors.ts'

// What the front doors use of the packages under the harness, so a door imports only dsh-harness (and dsh-core,
// dsh-app-boot, its protocol SDK). Only names a door's src uses are listed here; the types a door needs it reads
// off the harness's signatures (apps/*/src/harness-types.ts).
export { AgentLoopError } from 'dsh-agent-loop'
export { defineEvents, record } from 'dsh-session'
export type { EventMapOf } from 'dsh-session'
export { ToolsMcpError } from 'dsh-tools-mcp'
export type { Agent, AgentUpdate, NoticeLocale, PermissionAnswer, PermissionAsker, PermissionRequest, SessionEvent, SessionSummary } from './door-types.ts'
