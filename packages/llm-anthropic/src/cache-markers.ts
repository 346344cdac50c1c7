import type { HttpModel } from 'dsh-llm/http'
import type { MessagesRequest, WireCacheControl, WireContentBlock, WireMessage } from './request.ts'

/** Anthropic reads at most this many breakpoints per request. */
export const MAX_BREAKPOINTS = 4
/** From a breakpoint, Anthropic looks this many content blocks back for an earlier cache entry. */
export const LOOKBACK_BLOCKS = 20

/**
 * Places Anthropic's `cache_control` breakpoints on a Messages body, on the anthropic profile only (other
 * profiles get the body back unchanged). At most four, in prefix order:
 * - the last tool declared up front (a `defer_loading` one is outside the prefix), so the tool block is cached on its own;
 * - the end of the system prompt (sent as one text block);
 * - extra breakpoints on the conversation's grid, every `LOOKBACK_BLOCKS`th content block below the newest,
 *   highest first, as many as the budget leaves: once a step adds more blocks than the lookback spans, the
 *   previous request's entry is still found from the grid point above it, which every request marks alike;
 * - the newest content block, the rolling breakpoint that caches the whole request for the next one.
 * Never on a `role: 'system'` message (Anthropic's tool-change blocks), trailing or not: a breakpoint that
 * would land in one goes to the last block before it that is not in one.
 * Every breakpoint asks for the entry's `cacheTtl` when it names one (one lifetime per request, so 1-hour
 * entries never follow 5-minute ones). A pure function of the body and the model entry: the same request
 * gives the same markers, so a request rebuilt from the session log is byte-identical to the one sent.
 */
export function placeBreakpoints(body: MessagesRequest, model: HttpModel | undefined): MessagesRequest {
  if (model?.profile.id !== 'anthropic') return body
  const marker: WireCacheControl = model.cacheTtl === '5m' || model.cacheTtl === '1h' ? { type: 'ephemeral', ttl: model.cacheTtl } : { type: 'ephemeral' }
  let budget = MAX_BREAKPOINTS
  const marked: MessagesRequest = { ...body }
  const lastUpFront = body.tools?.findLastIndex((tool) => !tool.defer_loading) ?? -1
  if (lastUpFront >= 0) {
    marked.tools = body.tools!.map((tool, index) => (index === lastUpFront ? { ...tool, cache_control: marker } : tool))
    budget--
  }
  if (body.system) {
    const text = typeof body.system === 'string' ? body.system : body.system.map((block) => block.text).join('')
    marked.system = [{ type: 'text', text, cache_control: marker }]
    budget--
  }
  // markable[i]: the last block at or before position i that is not in a system-role message (-1: none)
  const markable: number[] = []
  for (const message of body.messages) {
    for (let block = 0; block < blockCount(message); block++) {
      markable.push(message.role === 'system' ? markable.at(-1) ?? -1 : markable.length)
    }
  }
  const blocks = markable.length
  if (blocks === 0 || budget === 0) return marked
  const newest = markable[blocks - 1]!
  if (newest < 0) return marked
  const extras: number[] = []
  for (let grid = Math.floor((blocks - 1) / LOOKBACK_BLOCKS) * LOOKBACK_BLOCKS - 1; grid >= 0 && extras.length < budget - 1; grid -= LOOKBACK_BLOCKS) {
    const target = markable[grid]!
    if (target >= 0 && target < newest && !extras.includes(target)) extras.push(target)
  }
  const at = new Set([newest, ...extras])
  let position = 0
  marked.messages = body.messages.map((message) => {
    const count = blockCount(message)
    const first = position
    position += count
    if (message.role === 'system' || ![...at].some((index) => index >= first && index < first + count)) return message
    const content: WireContentBlock[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
    return { role: message.role, content: content.map((block, offset) => (at.has(first + offset) ? { ...block, cache_control: marker } : block)) }
  })
  return marked
}

/** Content blocks of a message as Anthropic counts them for the lookback: a string is one text block. */
function blockCount(message: WireMessage): number {
  return typeof message.content === 'string' ? 1 : message.content.length
}
