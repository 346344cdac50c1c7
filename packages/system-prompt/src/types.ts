import type { ToolSchema } from 'dsh-core'

/**
 * Names the scope an assembly is for and a registration belongs to: a session or an agent id. Registrations
 * in a scope join (tool providers) or shadow by name (sections, contexts, variables) the global ones, only in
 * assemblies of that scope.
 */
export type ScopeKey = string

/**
 * What one assembly is for. Section texts, contexts, variable providers and tool providers receive it. `scope`
 * selects the scoped registrations that take part (none when absent); `signal` is the requesting turn's. The
 * agent loop also passes the model, the working folder and the agent id. Free-form beyond the named fields.
 */
export interface AssembleContext {
  scope?: ScopeKey
  signal?: AbortSignal
  model?: string
  cwd?: string
  agentId?: string
  [key: string]: unknown
}

/** One answer of a tool provider. */
export interface ToolProviderResult {
  /** The tools this provider shows in this assembly. */
  schemas: readonly ToolSchema[]
  /**
   * Every tool name the provider knows, including ones it hides in this assembly (deferred tools).
   * A `toolOrder` entry is unregistered only when no provider knows it. Defaults to the schemas' names.
   */
  knownNames?: readonly string[]
}

export type ToolProvider = (context: AssembleContext) => ToolProviderResult

export type SectionText = string | ((context: AssembleContext) => string)

/** A section of the system prompt: part of the cached prefix. */
export interface SectionDefinition {
  /** Unique in its layer (global or one scope), e.g. `deployment:persona`; a scoped one shadows a global one. */
  name: string
  /** Sections sort by order, then by name (code units). Must be finite. */
  order: number
  text: SectionText
  /**
   * This section is the whole system prompt: after the `system-prompt/assemble` waterfall it is the only
   * section. Two effective complete sections reject the assembly.
   */
  complete?: boolean
  /** `false` renders the text verbatim: `{{…}}` in it is not interpolated. Default `true`. */
  interpolate?: boolean
}

/**
 * Runtime context: volatile facts (date, working folder, git state) that stay out of the cached prefix. The
 * agent loop sends them as a user-role snapshot in the history, and only when they changed.
 */
export interface ContextDefinition {
  /** Unique in its layer; a scoped one shadows a global one. */
  name: string
  /** Contexts sort by order, then by name (code units). Must be finite. */
  order: number
  /** May reference `{{variables}}`; an empty text contributes nothing. */
  text: SectionText
}

export type VariableProvider = (context: AssembleContext) => string | undefined

/** One rendered-to-be section of an assembly. */
export interface AssembledSection {
  name: string
  text: string
  /** Present (`false`) when the section is rendered verbatim. */
  interpolate?: false
}

/** One runtime context of an assembly, its text resolved but not yet interpolated. */
export interface AssembledContext {
  name: string
  text: string
}

/** One rendered runtime context, as it appears in the snapshot. */
export interface ContextSnapshotSection {
  readonly name: string
  readonly text: string
}

/** The result of `assemble()`: sections and contexts in order, tools in canonical order, variables resolved. */
export interface PromptAssembly {
  sections: AssembledSection[]
  /** Runtime context; empty when suppressed (`includeRuntimeContext: false`, `suppressRuntimeContext()`). */
  contexts: AssembledContext[]
  tools: ToolSchema[]
  variables: Record<string, string | undefined>
}

/** The published name of `SectionDefinition`. */
export type PromptSection = SectionDefinition
/** The published name of `ContextDefinition`. */
export type PromptContext = ContextDefinition
