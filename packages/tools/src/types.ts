import type { ToolSchema } from 'dsh-core'
import type { ToolKind } from './kinds.ts'
import type { ToolOrigin } from './origin.ts'

/** What a running tool receives besides its arguments. */
export interface ToolExecuteContext {
  /** Aborted when the call times out or the caller cancels it. */
  signal: AbortSignal
}

/** A tool as a plugin registers it. */
export interface ExecutableTool<Args = any> {
  /** Matches `^[a-zA-Z0-9_-]{1,64}$`, the names model providers accept. */
  name: string
  description: string
  /** A JSON Schema (draft-07) object with `type: 'object'` at its root; arguments are validated against it. */
  parameters: object
  /** Returns the output: a string as is, `undefined` as '', anything else as JSON. */
  execute(args: Args, context: ToolExecuteContext): unknown
  /** Hidden from the model until `reveal(name)`; listed in `deferredNames()`. */
  shouldDefer?: boolean
  /** Keeps a deferred tool visible (and out of `deferredNames()`). */
  alwaysLoad?: boolean
  /** Overrides the runtime's `timeoutMs` for this tool. */
  timeoutMs?: number
  /** What the tool says about itself (MCP tool annotations). Never part of the model-facing schema. */
  annotations?: ToolAnnotations
  /**
   * What the tool does, as an ACP `ToolKind`; without it the runtime derives one from `annotations`
   * (`kindFromHints`), and `ToolRuntime.kind()` answers `other` when nothing is known. Never part of the
   * model-facing schema.
   */
  kind?: ToolKind
}

/**
 * Hints a tool gives about its effects, as MCP tool annotations spell them. Permission policies read them
 * (`dsh-agent-loop`); they are claims of the tool's author, not guarantees.
 */
export interface ToolAnnotations {
  /** The tool changes nothing. */
  readOnlyHint?: boolean
  /** The tool may delete or overwrite (meaningful when it is not read-only). */
  destructiveHint?: boolean
}

/** The outcome of one call; `execute()` never throws, failures arrive as `isError: true`. */
export interface ToolResult {
  output: string
  isError: boolean
}

/**
 * Which tools a call sees: without `agentId`, the tools registered for every agent; with it, those plus
 * the tools registered for that agent alone (as `AssembleContext.agentId` selects them for its assemblies).
 */
export interface ToolScope {
  agentId?: string
}

/** What `register()` takes besides the definition: the scope, and where the tool comes from. */
export interface ToolRegistration extends ToolScope {
  /** The remote source of the tool (an MCP server's name), recorded in its `origin`. */
  server?: string
}

export interface ExecuteOptions extends ToolScope {
  /** Aborting it cancels the call: the tool's own signal is aborted and the result is an error. */
  signal?: AbortSignal
}

/** Payload of `tools/change`. */
export interface ToolChange {
  action: 'register' | 'unregister' | 'reveal' | 'unreveal'
  name: string
  /** Set when the tool is registered for this agent alone. */
  agentId?: string
}

/** A registered tool: its checked definition plus what was prepared once at register time. */
export interface ToolEntry {
  readonly name: string
  readonly definition: Readonly<ExecutableTool>
  /** Deep-frozen, created once; the provider hands out this very object on every assembly. */
  readonly schema: ToolSchema
  /** Returns undefined for valid arguments, otherwise a description of every problem. */
  readonly check: (args: unknown) => string | undefined
  readonly deferred: boolean
  readonly alwaysLoad: boolean
  readonly timeoutMs: number | undefined
  /** Who registered it (plugin, app-file entry, server), set when it is added. */
  origin?: ToolOrigin
}


/** What `registerMany()` returns: called, it removes every tool of the batch; `each[i]` removes `definitions[i]` alone. */
export interface ToolBatchDisposer {
  (): Promise<void>
  readonly each: readonly (() => Promise<void>)[]
}
