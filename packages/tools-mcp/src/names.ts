import { createHash } from 'node:crypto'

const MAX_LENGTH = 64
const HASH_LENGTH = 8

/** Replaces every character a provider rejects with `_`. */
export function legalize(text: string): string {
  return text.replace(/[^a-zA-Z0-9_-]/g, '_')
}

/**
 * A mapped server name must end at the first `__` after `mcp__`, so that `mcp__<server>__<tool>` names
 * of two servers can only meet through a hash suffix: no `__` inside, no `_` at either end.
 */
export const SERVER_PART = /^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$/

/**
 * The model-facing name of a server's tool: `mcp__<server>__<tool>`, illegal characters as `_`. A name
 * longer than 64 keeps its first 55 characters plus `_` and 8 hex digits of a SHA-256 of the original
 * server and tool names, so it is stable across runs and machines.
 */
export function modelToolName(server: string, tool: string): string {
  const full = `mcp__${legalize(server)}__${legalize(tool)}`
  if (full.length <= MAX_LENGTH) return full
  const hash = createHash('sha256').update(`${server}\0${tool}`).digest('hex').slice(0, HASH_LENGTH)
  return `${full.slice(0, MAX_LENGTH - HASH_LENGTH - 1)}_${hash}`
}
