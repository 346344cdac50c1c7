import type { planCacheMarks } from 'dsh-llm'
import { tracedBlock, type HttpModel, type WireMarkable } from 'dsh-llm/http'
import type { ChatCompletionContentPartText, ChatCompletionCreateParams, ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ChatRequest, DashScopeMarkedMessage, DashScopeTextPart } from './request.ts'

/** Where dsh-llm plans a request's cache markers. */
type CacheMarkPlan = ReturnType<typeof planCacheMarks>

/** A breakpoint without its own `ttl`: it inherits the request's `prompt_cache_options.ttl`. */
const BREAKPOINT: ChatCompletionContentPartText.PromptCacheBreakpoint = { mode: 'explicit' }

/** DashScope's explicit-cache marker. */
const MARK: DashScopeTextPart['cache_control'] = { type: 'ephemeral' }

/**
 * `prompt_cache_options` of a request on a breakpoint model: mode `explicit` (no implicit breakpoint: only
 * the marked prefixes are written), with the entry's `cacheTtl` when it names one (`30m`, the only value).
 */
export function promptCacheOptions(cacheTtl: string | undefined): ChatCompletionCreateParams.PromptCacheOptions {
  return { mode: 'explicit', ...cacheTtl === '30m' && { ttl: cacheTtl } }
}

/**
 * What marker planning reads of a Chat Completions body, on the profiles whose markers this wire places
 * (openai on a breakpoint model, dashscope; others get none): the system prompt (the leading system
 * message) and per later message one block, markable when its content is text (not an assistant message
 * of tool calls only, not a system message of tool-update blocks).
 */
export function markableChat(body: ChatRequest, model: HttpModel): WireMarkable | undefined {
  if (!(model.profile.id === 'dashscope' || (model.profile.id === 'openai' && model.cache.explicitBreakpoints))) return undefined
  const first = body.messages[0]
  const system = first?.role === 'system' && typeof first.content === 'string'
  return {
    tools: (body.tools ?? []).map((tool) => ({ name: tool.function.name, deferred: tool.defer_loading === true })),
    system,
    messages: body.messages.slice(system ? 1 : 0).map((message) => ({
      blocks: 1,
      markable: typeof message.content === 'string',
      source: () => tracedBlock(message),
    })),
  }
}

/**
 * The messages with the markers of `plan` (`planCacheMarks`): each marked message sent as one text part
 * that carries OpenAI's `prompt_cache_breakpoint: { mode: 'explicit' }` (openai: two per request, within
 * the four OpenAI writes; the newest message's is matched by the next request among the conversation's
 * latest 80) or DashScope's `cache_control: { type: 'ephemeral' }`. A message without text content is left
 * unmarked. Pure.
 */
export function applyChatMarks(body: ChatRequest, plan: CacheMarkPlan, model: HttpModel): ChatRequest {
  const system = plan.system ? 0 : -1
  const offset = body.messages[0]?.role === 'system' && typeof body.messages[0].content === 'string' ? 1 : 0
  const marked = new Set(plan.blocks.map(({ message }) => message + offset))
  if (system < 0 && !marked.size) return body
  const mark = model.profile.id === 'dashscope' ? withCacheControl : withBreakpoint
  return { ...body, messages: body.messages.map((message, index) => (index === system || marked.has(index) ? mark(message) : message)) }
}

function withBreakpoint(message: ChatRequest['messages'][number]): ChatRequest['messages'][number] {
  if (typeof message.content !== 'string') return message
  const content: ChatCompletionContentPartText[] = [{ type: 'text', text: message.content, prompt_cache_breakpoint: BREAKPOINT }]
  return { ...message, content } as ChatCompletionMessageParam
}

function withCacheControl(message: ChatRequest['messages'][number]): ChatRequest['messages'][number] {
  if (typeof message.content !== 'string') return message
  const content: DashScopeTextPart[] = [{ type: 'text', text: message.content, cache_control: MARK }]
  return { ...message, content } as DashScopeMarkedMessage
}
