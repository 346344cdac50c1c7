export { legalizeToolName as legalize, modelToolName } from 'dsh-tools'

/**
 * A mapped server name must end at the first `__` after `mcp__`, so that `mcp__<server>__<tool>` names
 * of two servers can only meet through a hash suffix: no `__` inside, no `_` at either end.
 */
export const SERVER_PART = /^[a-zA-Z0-9-]+(?:_[a-zA-Z0-9-]+)*$/
