import { planCacheMarks } from 'dsh-llm'
import { tracedBlock, type HttpModel, type WireMarkable } from 'dsh-llm/http'
import type { MessagesRequest, WireCacheControl, WireContentBlock, WireMessage } from './request.ts'

/** Where dsh-llm plans a request's cache markers. */
type CacheMarkPlan = ReturnType<typeof planCacheMarks>

/**
 * What marker planning reads of a Messages body, on the anthropic profile (others get no markers): its
 * tools (a `defer_loading` one is outside the prefix), whether it has a system prompt, and per message its
 * content blocks (a string is one text block), a `role: 'system'` message (Anthropic's tool-change blocks)
 * being no place for a marker.
 */
export function markableMessages(body: MessagesRequest, model: HttpModel): WireMarkable | undefined {
  if (model.profile.id !== 'anthropic') return undefined
  return {
    tools: (body.tools ?? []).map((tool) => ({ name: tool.name, deferred: tool.defer_loading === true })),
    system: Boolean(body.system),
    messages: body.messages.map((message) => ({
      blocks: blockCount(message),
      markable: message.role !== 'system',
      source: (block) => tracedBlock(typeof message.content === 'string' ? message : message.content[block]!),
    })),
  }
}

/**
 * Puts Anthropic's `cache_control` breakpoints where `plan` says (`planCacheMarks`, anthropic profile):
 * on the marked tool, on the system prompt (then sent as one text block) and on the marked content blocks
 * (a marked string message is sent as one text block). Every breakpoint asks for the entry's `cacheTtl`
 * when it names one (one lifetime per request, so 1-hour entries never follow 5-minute ones). Pure: the
 * same request gives the same markers, so a request rebuilt from the session log is byte-identical.
 */
export function applyBreakpoints(body: MessagesRequest, plan: CacheMarkPlan, model: HttpModel): MessagesRequest {
  const marker: WireCacheControl = model.cacheTtl === '5m' || model.cacheTtl === '1h' ? { type: 'ephemeral', ttl: model.cacheTtl } : { type: 'ephemeral' }
  const marked: MessagesRequest = { ...body }
  if (plan.tool !== undefined) marked.tools = body.tools!.map((tool, index) => (index === plan.tool ? { ...tool, cache_control: marker } : tool))
  if (plan.system && body.system) {
    const text = typeof body.system === 'string' ? body.system : body.system.map((block) => block.text).join('')
    marked.system = [{ type: 'text', text, cache_control: marker }]
  }
  if (!plan.blocks.length) return marked
  const at = new Map<number, Set<number>>()
  for (const { message, block } of plan.blocks) at.set(message, (at.get(message) ?? new Set()).add(block))
  marked.messages = body.messages.map((message, index) => {
    const blocks = at.get(index)
    if (message.role === 'system' || !blocks) return message
    const content: WireContentBlock[] = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content
    return { role: message.role, content: content.map((block, offset) => (blocks.has(offset) ? { ...block, cache_control: marker } : block)) }
  })
  return marked
}

/** The body with the breakpoints `planCacheMarks` plans for `model` (none off the anthropic profile). */
export function placeBreakpoints(body: MessagesRequest, model: HttpModel | undefined): MessagesRequest {
  const shape = model && markableMessages(body, model)
  return shape ? applyBreakpoints(body, planCacheMarks(model.cache, shape), model!) : body
}

/** Content blocks of a message as Anthropic counts them for the lookback: a string is one text block. */
function blockCount(message: WireMessage): number {
  return typeof message.content === 'string' ? 1 : message.content.length
}
