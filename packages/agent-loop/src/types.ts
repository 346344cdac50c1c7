import type { ToolCall, Usage } from 'dsh-core'
import type { collect } from 'dsh-llm'
import type { EventData } from 'dsh-session'
import type ToolRuntime from 'dsh-tools'
import type { PermissionAsker } from './permission-gate.ts'
import type { PermissionPolicy, PermissionsConfig } from './permission-policy.ts'

/** What a tool call gives back (`ctx.tools.execute`). */
export type ToolResult = Awaited<ReturnType<ToolRuntime['execute']>>
/** Why a compaction ran (its `context/compaction` event's `reason`). */
export type CompactionReason = EventData<'context/compaction'>['reason']
/** How a turn ended (its `turn/end` event's `reason`). */
export type TurnEndReason = EventData<'turn/end'>['reason']

/** The loop's configuration (`AgentLoop.Config` validates it and holds the defaults). */
export interface AgentLoopConfig {
  /** Model id of new agents. */
  model: string
  maxSteps: number
  toolConcurrency: number
  /** Share of the model's context window (0 < share <= 1) at which a step first compacts the session. */
  compactAt: number
  /** Time limit of one compaction request, in milliseconds. */
  compactionTimeoutMs: number
  cwd?: string
  /** The permission policy of tool calls; omitted, every call runs without asking. */
  permissions?: PermissionsConfig
  /** Child agents (`agent.fork()`, the `agent` tool) one agent may run at once. */
  maxChildren: number
}

/**
 * What one agent runs with: the loop's configuration, its own model, the working directory resolved, and
 * the permission policy checked (absent: every call runs).
 */
export type AgentSettings = Required<Omit<AgentLoopConfig, 'permissions'>> & {
  permissions: PermissionPolicy | undefined
  /** The prompt scope it assembles in and the agent its tools run as: its own id, or a fork child's parent's. */
  scope: string
}

type ProviderVerdict = NonNullable<Awaited<ReturnType<typeof collect>>['verdict']>

/** A live update of a running turn, for front doors that stream (stdio, ACP). */
export type AgentUpdate =
  | { type: 'text'; turn: number; step: number; delta: string }
  | { type: 'tool-call'; turn: number; step: number; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'tool-result'; turn: number; step: number; id: string; name: string; output: string; isError: boolean }
  | { type: 'tools-changed'; turn: number; step: number; added: string[]; removed: string[] }
  /** A response's usage, with the provider's cache verdict on its request when the route sent one (`provider/verdict`). */
  | { type: 'usage'; turn: number; step: number; usage: Usage; verdict?: ProviderVerdict }
  /** A compaction ran (step 0: between turns): `error` when it failed and nothing was logged. */
  | { type: 'compaction'; turn: number; step: number; reason: CompactionReason; throughSeq?: number; usage?: Usage; error?: string }
  | { type: 'turn-end'; turn: number; reason: TurnEndReason; error?: string }

export interface PromptOptions {
  signal?: AbortSignal
  onUpdate?: (update: AgentUpdate) => void
  /**
   * Asks the person at the front door whether a tool call may run, when the permission policy says to ask.
   * Omitted (piped input, no client): such a call gets an error result naming the policy key to change.
   */
  askPermission?: PermissionAsker
}

/** How a turn ended, returned by `agent.prompt()`. A failed turn resolves too: the failure is data. */
export interface TurnResult {
  turn: number
  reason: TurnEndReason
  /** The text of the last assistant message of the turn ('' when none). */
  text: string
  toolCalls: ToolCall[]
  error?: string
}

export type AgentStatus = 'idle' | 'running'
