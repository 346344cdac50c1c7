import type { ToolSchema } from 'dsh-core'

/**
 * What one assembly is for. Section texts, variable providers and tool providers receive it; the agent
 * loop passes fields such as the model and the agent id. Free-form beyond the named fields.
 */
export interface AssembleContext {
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

export interface SectionDefinition {
  /** Unique among all sections, e.g. `deployment:persona`. */
  name: string
  /** Sections sort by order, then by name (code units). Must be finite. */
  order: number
  text: SectionText
  /** A complete section is rendered verbatim: `{{…}}` in it is not interpolated. */
  complete?: boolean
}

export type VariableProvider = (context: AssembleContext) => string | undefined

/** One rendered-to-be section of an assembly. */
export interface AssembledSection {
  name: string
  text: string
  complete?: boolean
}

/** The result of `assemble()`: sections in order, tools in canonical order, variables resolved. */
export interface PromptAssembly {
  sections: AssembledSection[]
  tools: ToolSchema[]
  variables: Record<string, string | undefined>
}
