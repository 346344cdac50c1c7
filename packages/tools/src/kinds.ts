import { describeValue } from 'dsh-core'
import { ToolsError } from './errors.ts'
import type { ToolAnnotations } from './types.ts'

/**
 * What a tool does, in the words of ACP's `ToolKind`: clients pick icons and permission rules by it (acpx
 * approves `read` and `search` calls by default and asks about the rest). Never part of the model-facing schema.
 */
export type ToolKind = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other'

/** Every `ToolKind`, in ACP's order. */
export const TOOL_KINDS: readonly ToolKind[] = Object.freeze(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other'])

/** Whether `value` is one of `TOOL_KINDS`. */
export function isToolKind(value: unknown): value is ToolKind {
  return typeof value === 'string' && (TOOL_KINDS as readonly string[]).includes(value)
}

/** The hints a kind can be told from: the permission hints plus MCP's `openWorldHint` (the tool reaches outside). */
export interface KindHints extends ToolAnnotations {
  openWorldHint?: boolean
}

/**
 * The kind MCP-style hints imply, or `undefined` when they say nothing: read-only is `read` (`fetch` when it
 * also reaches the open world), a destructive tool is `delete` (it may delete or overwrite: the most cautious
 * kind a client can treat it as), one that says it writes without destroying is `edit`.
 */
export function kindFromHints(hints: Readonly<KindHints> | undefined): ToolKind | undefined {
  if (!hints) return undefined
  if (hints.readOnlyHint === true) return hints.openWorldHint === true ? 'fetch' : 'read'
  if (hints.destructiveHint === true) return 'delete'
  if (hints.readOnlyHint === false || hints.destructiveHint === false) return 'edit'
  return undefined
}

/** Checks a definition's `kind`; the error names the tool, the bad value and every ACP kind. */
export function checkKind(name: string, kind: unknown): ToolKind | undefined {
  if (kind === undefined || isToolKind(kind)) return kind
  throw new ToolsError('INVALID_TOOL', `tool ${describeValue(name)} has kind ${describeValue(kind)}; a kind is one of the ACP tool kinds: ${TOOL_KINDS.join(', ')}`)
}
