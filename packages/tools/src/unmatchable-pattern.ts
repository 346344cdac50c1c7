import { quote } from 'dsh-core'
import { TOOL_ORDER_GROUP } from 'dsh-system-prompt'
import { TOOL_NAME } from './definition.ts'
import { KEPT_PREFIX_LENGTH, MAX_TOOL_NAME_LENGTH, legalizeToolName, modelToolName } from './remote-names.ts'

const VALID_CHARACTERS = /^[a-zA-Z0-9_-]*$/
/** `mcp__<server>__<tool>` as a user writes it: the server part ends at the first `__` after `mcp__`. */
const MCP_FORM = /^mcp__(.+?)__(.+)$/s
const RULE = `tool names match ${TOOL_NAME.source}`

/**
 * Why a valid pattern (`toolPatternProblem` passed it) can never match a tool name the model sees, with the
 * name to write instead where one can be worked out; undefined for a pattern some tool can match.
 *
 * - an exact name with a character providers reject, or longer than 64: no tool has it. Written as
 *   `mcp__<server>__<tool>` with the server's configured name or the tool's original name, the real name
 *   is `modelToolName(server, tool)` (characters made legal, a long name cut and hashed);
 * - a group whose prefix holds such a character: no name starts with it;
 * - a group whose prefix is longer than 64, or longer than 55 under `mcp__`: MCP names past 64 characters
 *   keep only their first 55 and a hash, so such a group misses exactly the long names it was written for.
 */
export function unmatchablePatternProblem(entry: string): string | undefined {
  if (entry.endsWith(TOOL_ORDER_GROUP)) return groupProblem(entry.slice(0, -TOOL_ORDER_GROUP.length))
  if (TOOL_NAME.test(entry)) return undefined
  const length = entry.length > MAX_TOOL_NAME_LENGTH ? `; it has ${entry.length} characters` : ''
  const mcp = MCP_FORM.exec(entry)
  if (!mcp) return `no tool can have this name (${RULE}${length})`
  const [, server, tool] = mcp as unknown as [string, string, string]
  return `no tool can have this name (${RULE}${length}); the model sees tool ${quote(tool)} of MCP server ${quote(server)} `
    + `as ${quote(modelToolName(server, tool))}: write that`
}

function groupProblem(prefix: string): string | undefined {
  const mcp = prefix.startsWith('mcp__')
  if (!VALID_CHARACTERS.test(prefix)) {
    const legal = legalizeToolName(prefix)
    const instead = mcp && legal.length <= KEPT_PREFIX_LENGTH ? `; MCP names have ${quote(legal + TOOL_ORDER_GROUP)} instead: write that` : ''
    return `no tool name starts with ${quote(prefix)} (${RULE})${instead}`
  }
  if (prefix.length > MAX_TOOL_NAME_LENGTH) return `no tool name starts with a ${prefix.length}-character prefix (${RULE})`
  if (mcp && prefix.length > KEPT_PREFIX_LENGTH) {
    const kept = prefix.slice(0, KEPT_PREFIX_LENGTH) + TOOL_ORDER_GROUP
    return `MCP tool names longer than ${MAX_TOOL_NAME_LENGTH} characters keep only their first ${KEPT_PREFIX_LENGTH} and a hash, so a group `
      + `prefix of ${prefix.length} characters misses them; write at most ${KEPT_PREFIX_LENGTH}: ${quote(kept)}`
  }
  return undefined
}
