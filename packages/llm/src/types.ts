/** A tool as the model sees it: the JSON Schema of its arguments plus a description. */
export interface ToolDefinition {
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
}

/** The model-facing conversation history, provider-neutral. */
export type ChatMessage =
  | { role: 'user'; text: string }
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

/** How a route can take tool changes without rewriting the cached prefix. */
export type ToolUpdateMode = 'none' | 'addition-only' | 'in-history'

/**
 * Immutable reduction of a session's headers and tool-registry messages (produced by dsh-session's
 * `toolHistory()`): the declarations at the start of the current request sequence, the ordered
 * updates of that sequence, and the definitions their additions resolve to.
 */
export interface ToolHistorySnapshot {
  /** Seq of the request header that opened the current sequence. */
  sequenceStartSeq: number
  /** Tool definitions declared when the sequence started, in header order. */
  declarations: readonly ToolDefinition[]
  /** The tool-registry updates of this sequence, in log order. */
  updates: readonly ToolHistoryUpdate[]
  /** Resolves an added tool's definition through the header the update refers to. */
  resolve(name: string, headerSeq: number): ToolDefinition | undefined
}

export interface ToolHistoryUpdate {
  /** Seq of the developer/message event: the update id. */
  seq: number
  added: readonly string[]
  removed: readonly string[]
  headerSeq: number
}

/** What a caller asks a model for. Deep-frozen by `llm.stream()` before any adapter sees it. */
export interface GenerateOptions {
  model: string
  system: string
  tools: ToolDefinition[]
  messages: ChatMessage[]
  /** Tools registered as deferred (shouldDefer) that supporting routes may declare with deferred loading. */
  deferredTools?: string[]
  toolHistory?: ToolHistorySnapshot
  maxTokens?: number
  signal?: AbortSignal
}

/** One item of a model stream. A stream ends with exactly one `done`. */
export type StreamEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool-call'; call: ToolCall }
  | { type: 'usage'; usage: Usage }
  | { type: 'done'; stopReason: StopReason }

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'cancelled'

/** A provider route: the models it serves and how it streams them. */
export interface LlmAdapter {
  /** Provider id, e.g. `scripted`, `openai`, `anthropic`. */
  provider: string
  /** Model ids this adapter serves. */
  models: string[]
  /** Tool-update capability of this route (default `none`). */
  toolUpdate?: ToolUpdateMode | ((model: string) => ToolUpdateMode)
  /** Context window of a served model, in tokens (prompt and output together); undefined when unknown. */
  contextWindow?: number | ((model: string) => number | undefined)
  stream(options: GenerateOptions): AsyncIterable<StreamEvent>
}
