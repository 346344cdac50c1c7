import type { ChatCompletionContentPartText, ChatCompletionCreateParams, ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ChatRequest } from './request.ts'

/** A breakpoint without its own `ttl`: it inherits the request's `prompt_cache_options.ttl`. */
const BREAKPOINT: ChatCompletionContentPartText.PromptCacheBreakpoint = { mode: 'explicit' }

/**
 * `prompt_cache_options` of a request on a breakpoint model: mode `explicit` (no implicit breakpoint: only
 * the marked prefixes are written), with the entry's `cacheTtl` when it names one (`30m`, the only value).
 */
export function promptCacheOptions(cacheTtl: string | undefined): ChatCompletionCreateParams.PromptCacheOptions {
  return { mode: 'explicit', ...cacheTtl === '30m' && { ttl: cacheTtl } }
}

/**
 * The messages with OpenAI's explicit breakpoints: one at the end of the stable prefix (the last system
 * message, after the tools) and a rolling one on the newest message, each message sent as one text part
 * that carries `prompt_cache_breakpoint: { mode: 'explicit' }`. Two per request, within the four OpenAI
 * writes; the newest message's breakpoint is matched by the next request among the conversation's latest
 * 80. A message without text content (an assistant message of tool calls only) is left unmarked.
 */
export function markBreakpoints(messages: ChatRequest['messages']): ChatRequest['messages'] {
  const stable = messages.findLastIndex((message) => message.role === 'system' && typeof message.content === 'string')
  const newest = messages.length - 1
  return messages.map((message, index) => (index === stable || index === newest ? withBreakpoint(message) : message))
}

function withBreakpoint(message: ChatRequest['messages'][number]): ChatRequest['messages'][number] {
  if (typeof message.content !== 'string') return message
  const content: ChatCompletionContentPartText[] = [{ type: 'text', text: message.content, prompt_cache_breakpoint: BREAKPOINT }]
  return { ...message, content } as ChatCompletionMessageParam
}
