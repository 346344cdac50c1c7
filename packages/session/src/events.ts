import type { ToolCall, ToolSchema, Usage } from 'dsh-core'

/**
 * Why a `request/header` was logged: the first request, the first after a reload, a changed header, or the
 * first header after a `model/switch`.
 */
export type HeaderReason = 'initial' | 'resume' | 'change' | 'model'

/** Why a compaction ran: the next request passed the configured share of the window, or someone asked. */
export type CompactionReason = 'auto' | 'manual'

/** How a turn ended. */
export type TurnEndReason = 'done' | 'error' | 'cancelled' | 'step_limit'

/**
 * The model-facing front of a request: model id, rendered system prompt, effective tools in order, and
 * the tools declared with deferred loading on routes that support it (in tool order; absent when none),
 * since that set decides `defer_loading` on the wire.
 */
export interface RequestHeader {
  model: string
  system: string
  tools: ToolSchema[]
  deferredTools?: string[]
}

/** Who decided a tool call: the policy, an earlier "always" answer of this session, the person asked, or no one. */
export type PermissionDecider = 'policy' | 'session' | 'user' | 'unanswered' | 'cancelled'

/** The policy key that decided a call `by: 'policy'`. */
export type PermissionRule = 'permissions.deny' | 'permissions.allow' | 'permissions.default' | 'readOnlyHint'

/** What the person asked chose. */
export type PermissionAnswer = 'allow-once' | 'allow-always' | 'deny'

/**
 * Data of each event type, by type. Core types are validated field by field at append; other packages
 * may add their own `prefix/verb` types by augmenting this interface (their data is checked as JSON only).
 */
export interface SessionEventMap {
  'turn/start': { turn: number }
  'step/start': { turn: number; step: number }
  'user/message': { turn: number; text: string }
  /**
   * The `user/message` at seq `messageSeq` (of this turn) was refused before any request carried it — the
   * request it would start did not fit the model's context window. It is not history: no later request
   * carries it, and the next turn goes on as if it had not been sent. The turn's `turn/end` says why.
   */
  'user/refused': { turn: number; messageSeq: number }
  'request/header': { turn: number; step: number; reason: HeaderReason; header: RequestHeader }
  'developer/message': {
    turn: number
    step: number
    source: 'tool-registry'
    added: string[]
    removed: string[]
    headerSeq: number
  }
  'assistant/message': { turn: number; step: number; text: string; toolCalls: ToolCall[]; usage?: Usage }
  'tool/call': { turn: number; step: number; id: string; name: string; arguments: Record<string, unknown> }
  'tool/result': { turn: number; step: number; id: string; name: string; output: string; isError: boolean }
  'step/end': { turn: number; step: number }
  'turn/end': { turn: number; reason: TurnEndReason; error?: { message: string } }
  /** The agent's model was switched (say, `/model` in the REPL) after turn `turn`; the next header has reason `model`. */
  'model/switch': { turn: number; from: string; to: string }
  /** Starts a new tool-history sequence at the next `request/header` (e.g. after compaction). */
  'sequence/reset': { reason: string }
  /**
   * The model-facing history through seq `throughSeq` is replaced by `summary` (tool-registry messages of
   * that range excepted: the tools they announced stay declared). `step` is the step it ran before, 0
   * between turns; `usage` is the compaction call's.
   */
  'context/compaction': { turn: number; step: number; reason: CompactionReason; summary: string; throughSeq: number; usage?: Usage }
  /**
   * The runtime context (date, working folder, git state…) changed: `text` reaches the model as a user-role
   * message after the cached prefix and replaces any earlier snapshot; `sections` are its named parts.
   */
  'context/snapshot': { turn: number; step: number; text: string; sections: { name: string; text: string }[] }
  /**
   * Whether the tool call `id` of this step may run, decided after its `tool/call` and before its
   * `tool/result` (a denied call's result is an error). `rule` and `pattern` say which policy key decided
   * (`by: 'policy'`), `answer` what the person chose (`by: 'user'`); an `allow-always` answer is remembered
   * for the tool for the rest of the session, a resumed one included.
   */
  'permission/decision': {
    turn: number
    step: number
    id: string
    name: string
    decision: 'allow' | 'deny'
    by: PermissionDecider
    rule?: PermissionRule
    pattern?: string
    answer?: PermissionAnswer
  }
}

/** Data accepted for an event type: the mapped shape for known types, any JSON object otherwise. */
export type EventData<K extends string> = K extends keyof SessionEventMap ? SessionEventMap[K] : Record<string, unknown>

/** One logged event. Deep-frozen once appended. */
export interface SessionEvent<K extends string = string> {
  readonly seq: number
  readonly time: string
  readonly type: K
  readonly data: EventData<K>
}

/** Narrows an event to one type. */
export function isEvent<K extends keyof SessionEventMap>(event: SessionEvent, type: K): event is SessionEvent<K> {
  return event.type === type
}

