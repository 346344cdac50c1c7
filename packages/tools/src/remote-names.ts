import { createHash } from 'node:crypto'

/** The longest tool name model providers accept (`TOOL_NAME`). */
export const MAX_TOOL_NAME_LENGTH = 64
const HASH_LENGTH = 8

/**
 * How many characters of a remote tool's full name survive when it is longer than 64: the name is cut
 * there and ends with `_` and a hash (`modelToolName`).
 */
export const KEPT_PREFIX_LENGTH = MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1

/** Replaces every character a provider rejects in a tool name with `_`. */
export function legalizeToolName(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '_')
}

/**
 * The model-facing name of a remote (MCP) server's tool: `mcp__<server>__<tool>`, illegal characters as
 * `_`. A name longer than 64 keeps its first 55 characters plus `_` and 8 hex digits of a SHA-256 of the
 * original server and tool names, so it is stable across runs and machines.
 */
export function modelToolName(server: string, tool: string): string {
  const full = `mcp__${legalizeToolName(server)}__${legalizeToolName(tool)}`
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, HASH_LENGTH)
  return `${full.slice(0, KEPT_PREFIX_LENGTH)}_${hash}`
}
