/** A tool as the model sees it: a name, a description and the JSON Schema object of its arguments. */
export interface ToolSchema {
  name: string
  description: string
  parameters: object
}

/** One call the model asked for. `arguments` is the parsed JSON object. */
export interface ToolCall {
  id: string
  name: string
  arguments: Record<string, unknown>
}

/** Normalized token usage of one response; cache figures are 0 when a provider reports none. */
export interface Usage {
  /** Every prompt token of the request, cache reads and cache writes included (OpenAI's convention). */
  inputTokens: number
  outputTokens: number
  /** Prompt tokens served from the provider's prompt cache. */
  cacheReadTokens: number
  /** Prompt tokens written to the provider's prompt cache. */
  cacheWriteTokens: number
  /**
   * Set when no provider reported these figures: the offline scripted model counts the request's bytes and
   * reads an emulated prompt cache. Whoever shows such figures says they are emulated, and never adds them
   * to a real provider's as if they were alike.
   */
  emulated?: true
}

/** The model-facing conversation history, provider-neutral. */
export type ChatMessage =
  /** `source: 'runtime-context'` marks a runtime-context snapshot, which is not a request of the user. */
  | { role: 'user'; text: string; source?: 'runtime-context' }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  | { role: 'tool'; id: string; name: string; output: string; isError: boolean }
  | ToolUpdateMessage

/** A logical tool-registry update: names added and removed against the previous request header. */
export interface ToolUpdateMessage {
  role: 'developer'
  source: 'tool-registry'
  added: string[]
  removed: string[]
  /** Seq of the request header through which added definitions are resolved. */
  headerSeq: number
}

/**
 * Immutable reduction of a session's headers and tool-registry messages (produced by dsh-session's
 * `toolHistory()`): the declarations at the start of the current request sequence, the ordered
 * updates of that sequence, and the schemas their additions resolve to.
 */
export interface ToolHistorySnapshot {
  /** Seq of the request header that opened the current sequence. */
  sequenceStartSeq: number
  /** Tool schemas declared when the sequence started, in header order. */
  declarations: readonly ToolSchema[]
  /** The tool-registry updates of this sequence, in log order. */
  updates: readonly ToolHistoryUpdate[]
  /** Resolves an added tool's schema through the header the update refers to. */
  resolve(name: string, headerSeq: number): ToolSchema | undefined
}

/** One tool-registry update of a request sequence. */
export interface ToolHistoryUpdate {
  /** Seq of the developer/message event: the update id. */
  seq: number
  added: readonly string[]
  removed: readonly string[]
  headerSeq: number
}
