/** What a lint finding is about. */
export type LintRule =
  | 'varies-between-assemblies'
  | 'varies-between-boots'
  | 'volatile-text'
  | 'cwd-in-prefix'
  | 'mcp-listing-unstable'
  | 'volatile-tool-description'
  | 'tool-block-too-large'
  | 'prefix-below-minimum'
  | 'prefix-over-window'

/** Where a finding comes from: a section, a prompt variable, a tool, an MCP server, or the model (for the whole prefix). */
export interface LintSource {
  kind: 'section' | 'variable' | 'tool' | 'server' | 'model'
  name: string
  /** The app-file entry behind it, when known. */
  entry?: string | null
  /** For a tool from `dsh-tools-mcp`: its server. */
  server?: string | null
}

export interface LintFinding {
  rule: LintRule
  source: LintSource
  /** One line saying what was found. */
  message: string
  /** What it costs and what to do instead. */
  advice?: string
  /** Rule-specific facts (the values seen, the matched text, sizes). */
  detail?: Record<string, unknown>
}

/** A check that could not run, and why. */
export interface PendingCheck {
  rule: LintRule
  note: string
}

export interface LintReport {
  file: string
  findings: LintFinding[]
  pending: PendingCheck[]
  checked: {
    boots: number
    assemblies: number
    /** tools/list answers compared, per MCP server. */
    mcpListings: { server: string; listings: number }[]
    prefixBytes: number
    toolBytes: number
    tools: number
    sections: number
  }
}
