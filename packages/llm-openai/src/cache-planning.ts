import { createHash } from 'node:crypto'
import type { GenerateOptions } from 'dsh-llm'
import type { HttpModel } from 'dsh-llm/http'
import { promptCacheOptions } from './breakpoints.ts'
import type { PromptCacheKeyMode } from './config.ts'
import type { ChatRequest } from './request.ts'

/**
 * Adds the request fields a Chat Completions body needs for its provider's cache, by the model's profile; a
 * pure function of its arguments, so a request rebuilt from the session log gives the same bytes. The
 * markers on messages are placed after it, as dsh-llm's `planCacheMarks` plans them (`applyChatMarks`).
 * - openai: `prompt_cache_key` (unless `off`); on a breakpoint model (GPT-5.6 and later, or `cacheBreakpoints:
 *   true`) `prompt_cache_options`, never `prompt_cache_retention`; on any other model
 *   `prompt_cache_retention` when the entry names a `cacheTtl` (`in-memory` is sent as the API spells it, `in_memory`);
 * - dashscope, deepseek and generic: nothing (dashscope's markers are on its messages).
 */
export function planChatCaching(body: ChatRequest, options: GenerateOptions, model: HttpModel | undefined, keys: PromptCacheKeyMode): ChatRequest {
  switch (model?.profile.id) {
    case 'openai': {
      const key = promptCacheKey(options, keys)
      if (model.cache.explicitBreakpoints) {
        const cacheOptions = promptCacheOptions(model.cacheTtl)
        return { ...body, ...key !== undefined && { prompt_cache_key: key }, prompt_cache_options: cacheOptions }
      }
      const retention = RETENTION[model.cacheTtl ?? '']
      return { ...body, ...key !== undefined && { prompt_cache_key: key }, ...retention && { prompt_cache_retention: retention } }
    }
    default:
      return body
  }
}

/**
 * The `prompt_cache_key` of a request: a hash of its canonical tools (the sequence's first declarations, so
 * a tool that joins mid-session does not move the session to other machines) and its system prompt, plus
 * in mode `session` the conversation's first user message.
 */
export function promptCacheKey(options: GenerateOptions, mode: PromptCacheKeyMode): string | undefined {
  if (mode === 'off') return undefined
  const hash = createHash('sha256')
  hash.update(JSON.stringify(options.toolHistory?.declarations ?? options.tools)).update('\0').update(options.system)
  if (mode === 'session') {
    const first = [...options.messages].find((message) => message.role === 'user')
    hash.update('\0').update(first?.role === 'user' ? first.text : '')
  }
  return `dsh-${hash.digest('hex').slice(0, 32)}`
}

/** `prompt_cache_retention` by the entry's `cacheTtl` (models before GPT-5.6). */
const RETENTION: Readonly<Record<string, 'in_memory' | '24h'>> = { 'in-memory': 'in_memory', '24h': '24h' }
