import type { IncomingHttpHeaders } from 'node:http'
import { DEFAULT_TOOL_UPDATE_BETA } from 'dsh-llm/http'
import { PromptWriter, isObject, pieces, type ModelReply, type PromptUsage, type ReadRequest, type Turn } from './prompt.ts'
import { MAX_OPENAI_BREAKPOINTS, OPENAI_BREAKPOINT_TTLS, type OpenAIBreakpointTtl } from './openai-breakpoints.ts'
import { MAX_MARKS, type EmulatedProfile } from './provider-cache.ts'

const TOOL_KEYS = ['type', 'function', 'defer_loading']
/** The header DeepSeek's route reads the tool-update beta from. */
const BETA_HEADER = 'anthropic-beta'

/**
 * Checks a Chat Completions request the way `dsh-llm-openai` must send it and renders what the model
 * sees: the tools array first, then every message, the system message included. With `toolUpdates`
 * (DeepSeek's route: .agents/notes/implemented/feature/2026-11-30-effective-tool-header.md) the
 * endpoint also takes `defer_loading` declarations, which are not rendered up front, and system-role messages of `tool_addition` / `tool_removal` blocks, rendered at
 * their place in history; the beta header must come exactly with such blocks. Without it both are refused.
 * Fields one provider documents are refused elsewhere: `prompt_cache_key` / `prompt_cache_retention` /
 * `prompt_cache_options` and `prompt_cache_breakpoint` on content parts (at most 4) go to OpenAI only, and
 * `prompt_cache_retention` never beside `prompt_cache_options`; `cache_control` on content parts (at most 4)
 * to DashScope only.
 */
export function readChatRequest(body: unknown, headers: IncomingHttpHeaders, models: readonly string[], profile: EmulatedProfile = 'generic'): ReadRequest {
  const toolUpdates = profile === 'deepseek'
  const problems: string[] = []
  const problem = (message: string) => problems.push(`chat completions: ${message}`)
  const writer = new PromptWriter()
  const turns: Turn[] = []
  if (!String(headers.authorization ?? '').startsWith('Bearer ')) problem('no Authorization: Bearer header')
  if (!isObject(body)) {
    problem('the body is not a JSON object')
    return { problems, prompt: writer.finish([]), turns }
  }
  if (!models.includes(body.model)) problem(`model ${JSON.stringify(body.model)} is not served; models: ${models.join(', ')}`)
  if (body.stream !== true) problem('stream is not true')
  if (body.stream_options?.include_usage !== true) problem('stream_options.include_usage is not true (no usage would be reported)')
  for (const key of ['prompt_cache_key', 'prompt_cache_retention', 'prompt_cache_options']) {
    if (body[key] !== undefined && profile !== 'openai') problem(`${key} on a ${profile} route, whose provider does not document it`)
  }
  if (body.prompt_cache_key !== undefined) {
    if (typeof body.prompt_cache_key !== 'string' || body.prompt_cache_key === '') problem(`prompt_cache_key ${JSON.stringify(body.prompt_cache_key)} is not a non-empty string`)
    else writer.cacheKey = body.prompt_cache_key
  }
  if (body.prompt_cache_retention !== undefined && !['in_memory', '24h'].includes(body.prompt_cache_retention)) {
    problem(`prompt_cache_retention ${JSON.stringify(body.prompt_cache_retention)} is not in_memory or 24h`)
  }
  readCacheOptions(body, writer, problem)
  readAffinity(body, writer, profile, problem)
  const text = (content: unknown, where: string, open: string) => writeText(content, where, open, profile, writer, problem)

  const declared: string[] = []
  const deferred = new Map<string, string>()
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools) || body.tools.length === 0) problem('tools is present but not a non-empty array')
    for (const [index, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
      const fn = tool?.function
      if (tool?.type !== 'function' || !isObject(fn) || typeof fn.name !== 'string' || typeof fn.description !== 'string' || !isObject(fn.parameters)) {
        problem(`tools[${index}] is not { type: 'function', function: { name, description, parameters } }`)
        continue
      }
      const extra = Object.keys(tool).filter((key) => !TOOL_KEYS.includes(key))
      if (extra.length) problem(`tools[${index}] has unknown keys ${extra.join(', ')}`)
      if (tool.defer_loading !== undefined && (!toolUpdates || tool.defer_loading !== true)) {
        problem(`tools[${index}].defer_loading ${toolUpdates ? 'is not true' : 'on an endpoint without tool updates'}`)
      }
      if (declared.includes(fn.name)) problem(`tool ${JSON.stringify(fn.name)} is declared twice`)
      declared.push(fn.name)
      if (tool.defer_loading === true) deferred.set(fn.name, JSON.stringify(fn))
      else writer.tool(fn.name, fn)
    }
  }
  let updates = 0

  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : []
  if (messages.length === 0) problem('messages is not a non-empty array')
  const callNames = new Map<string, string>()
  let pending = new Set<string>()
  messages.forEach((message, index) => {
    const where = `messages[${index}]`
    if (!isObject(message)) return problem(`${where} is not an object`)
    if (message.role !== 'tool' && pending.size) problem(`${where} (${message.role}) comes before the results of tool calls ${[...pending].join(', ')}`)
    switch (message.role) {
      case 'system':
        if (toolUpdates && Array.isArray(message.content)) {
          updates++
          return readUpdateBlocks(message.content, where, deferred, writer, problem)
        }
        if (index !== 0) problem(`${where}: a system message after the first message`)
        text(message.content, `${where} (system)`, '<|system|>\n')
        return
      case 'user':
        turns.push({ role: 'user', text: text(message.content, `${where} (user)`, '<|user|>\n') })
        return
      case 'assistant': {
        const calls: unknown[] = message.tool_calls ?? []
        if (!Array.isArray(calls)) return problem(`${where}: tool_calls is not an array`)
        if (calls.length === 0 && typeof message.content !== 'string') problem(`${where}: an assistant message with neither content nor tool calls`)
        let rendered = `<|assistant|>\n${message.content ?? ''}`
        pending = new Set()
        for (const call of calls as any[]) {
          if (typeof call?.id !== 'string' || call.type !== 'function' || typeof call.function?.name !== 'string' || typeof call.function.arguments !== 'string') {
            problem(`${where}: a tool call is not { id, type: 'function', function: { name, arguments } }`)
            continue
          }
          try {
            JSON.parse(call.function.arguments)
          } catch {
            problem(`${where}: tool call ${call.id} has arguments that are not JSON`)
          }
          callNames.set(call.id, call.function.name)
          pending.add(call.id)
          rendered += `<tool_call>${JSON.stringify({ name: call.function.name, arguments: call.function.arguments })}</tool_call>`
        }
        writer.write(`${rendered}\n<|end|>\n`)
        turns.push({ role: 'assistant' })
        return
      }
      case 'tool':
        if (!pending.delete(message.tool_call_id)) problem(`${where}: a result for ${JSON.stringify(message.tool_call_id)}, which no preceding assistant message called`)
        turns.push({ role: 'tool', name: callNames.get(message.tool_call_id) ?? '', output: text(message.content, `${where} (tool)`, `<|tool|>${message.tool_call_id}\n`) })
        return
      default:
        problem(`${where}: unknown role ${JSON.stringify(message.role)}`)
    }
  })
  if (pending.size) problem(`the request ends before the results of tool calls ${[...pending].join(', ')}`)
  // A tool-update message announces tools; the request still answers the message before it.
  const last = messages.findLast((message: any) => !(toolUpdates && message?.role === 'system' && Array.isArray(message.content))) as { role?: string } | undefined
  if (last && last.role !== 'user' && last.role !== 'tool') problem(`the last message is ${JSON.stringify(last.role)}, so there is nothing to answer`)
  const beta = headers[BETA_HEADER]
  if (updates && beta !== DEFAULT_TOOL_UPDATE_BETA) problem(`tool-update blocks without ${BETA_HEADER}: ${DEFAULT_TOOL_UPDATE_BETA} (got ${JSON.stringify(beta)})`)
  if (!updates && beta !== undefined) problem(`${BETA_HEADER} ${JSON.stringify(beta)} on a request without tool-update blocks`)
  if (profile === 'openai' && writer.markCount > MAX_OPENAI_BREAKPOINTS) {
    problem(`${writer.markCount} prompt_cache_breakpoint parts; at most ${MAX_OPENAI_BREAKPOINTS} are written per request`)
  } else if (writer.markCount > MAX_MARKS) problem(`${writer.markCount} cache_control markers; at most ${MAX_MARKS} are allowed`)
  return { problems, prompt: writer.finish(declared), turns }
}

/**
 * Renders a message's content — a string, or text parts — and returns its text. Each part is one block;
 * on DashScope a part may carry `cache_control: { type: 'ephemeral' }`, which marks its block.
 */
function writeText(content: unknown, where: string, open: string, profile: EmulatedProfile, writer: PromptWriter, problem: (message: string) => void): string {
  if (typeof content === 'string') {
    writer.write(`${open}${content}\n<|end|>\n`)
    return content
  }
  if (!Array.isArray(content) || content.length === 0) {
    problem(`${where}: content is neither a string nor text parts`)
    return ''
  }
  let whole = ''
  content.forEach((part: any, index) => {
    if (part?.type !== 'text' || typeof part.text !== 'string') return problem(`${where}: content[${index}] is not { type: 'text', text }`)
    const extra = Object.keys(part).filter((key) => !PART_KEYS.includes(key))
    if (extra.length) problem(`${where}: content[${index}] has unknown keys ${extra.join(', ')}`)
    writer.write(`${index === 0 ? open : ''}${part.text}`)
    whole += part.text
    if (part.prompt_cache_breakpoint !== undefined) readBreakpoint(part.prompt_cache_breakpoint, `${where}: content[${index}]`, profile, writer, problem)
    if (part.cache_control === undefined) return
    if (profile !== 'dashscope') return problem(`${where}: cache_control on the ${profile} route, whose provider does not document it`)
    if (!isObject(part.cache_control) || part.cache_control.type !== 'ephemeral' || Object.keys(part.cache_control).length !== 1) {
      return problem(`${where}: content[${index}].cache_control ${JSON.stringify(part.cache_control)} is not { type: 'ephemeral' }`)
    }
    writer.mark()
  })
  writer.extend('\n<|end|>\n')
  return whole
}

const PART_KEYS = ['type', 'text', 'cache_control', 'prompt_cache_breakpoint']

/**
 * Reads OpenAI's `prompt_cache_options` (`{ mode?: 'implicit' | 'explicit', ttl?: '30m' }`, GPT-5.6 and later),
 * refused beside the deprecated `prompt_cache_retention`; its mode decides which of the route's caches answers.
 */
function readCacheOptions(body: Record<string, any>, writer: PromptWriter, problem: (message: string) => void) {
  const options = body.prompt_cache_options
  if (options === undefined) return
  if (body.prompt_cache_retention !== undefined) problem('prompt_cache_retention beside prompt_cache_options; send prompt_cache_options.ttl only')
  const extra = isObject(options) ? Object.keys(options).filter((key) => key !== 'mode' && key !== 'ttl') : []
  if (!isObject(options) || extra.length || !['implicit', 'explicit', undefined].includes(options.mode) || ![undefined, '30m'].includes(options.ttl)) {
    return problem(`prompt_cache_options ${JSON.stringify(options)} is not { mode?: 'implicit' | 'explicit', ttl?: '30m' }`)
  }
  writer.cacheMode = options.mode ?? 'implicit'
  writer.breakpointTtl = options.ttl ?? '30m'
}

/**
 * Reads a local engine's affinity field: llama.cpp's `id_slot` (a whole number >= -1), SGLang's `session_id`
 * and vLLM's `cache_salt` (non-empty strings, at most 1,024 characters). They go to local engines only: on a
 * hosted provider's route each is a problem; only the llama.cpp route (`llamacpp`) acts on `id_slot`.
 */
function readAffinity(body: Record<string, any>, writer: PromptWriter, profile: EmulatedProfile, problem: (message: string) => void) {
  const local = profile === 'generic' || profile === 'llamacpp'
  for (const key of ['id_slot', 'session_id', 'cache_salt']) {
    if (body[key] !== undefined && !local) problem(`${key} on the ${profile} route, which is no local engine's`)
  }
  if (body.id_slot !== undefined) {
    if (!Number.isSafeInteger(body.id_slot) || body.id_slot < -1) problem(`id_slot ${JSON.stringify(body.id_slot)} is not a whole number >= -1`)
    else writer.slot = body.id_slot
  }
  for (const key of ['session_id', 'cache_salt']) {
    const value = body[key]
    if (value !== undefined && (typeof value !== 'string' || value === '' || value.length > 1024)) problem(`${key} ${JSON.stringify(value)} is not a string of 1 to 1024 characters`)
  }
}

/** Reads a content part's `prompt_cache_breakpoint` (OpenAI only) and marks the part's block. */
function readBreakpoint(value: unknown, where: string, profile: EmulatedProfile, writer: PromptWriter, problem: (message: string) => void) {
  if (profile !== 'openai') return problem(`${where}: prompt_cache_breakpoint on the ${profile} route, whose provider does not document it`)
  const keys = isObject(value) ? Object.keys(value).filter((key) => key !== 'mode' && key !== 'ttl') : []
  if (!isObject(value) || value.mode !== 'explicit' || keys.length || (value.ttl !== undefined && !OPENAI_BREAKPOINT_TTLS.includes(value.ttl))) {
    return problem(`${where}.prompt_cache_breakpoint ${JSON.stringify(value)} is not { mode: 'explicit', ttl?: '30m' | '12h' }`)
  }
  writer.mark((value.ttl as OpenAIBreakpointTtl | undefined) ?? writer.breakpointTtl ?? '30m')
}

/** Renders a system message of tool-update blocks; an addition must announce a deferred declaration. */
function readUpdateBlocks(content: unknown[], where: string, deferred: Map<string, string>, writer: PromptWriter, problem: (message: string) => void) {
  if (content.length === 0) return problem(`${where}: a system message without tool-update blocks`)
  for (const block of content as any[]) {
    if (block?.type === 'tool_addition') {
      const announced = isObject(block.tool) ? JSON.stringify(block.tool) : undefined
      if (!announced || deferred.get(block.tool.name) !== announced) {
        problem(`${where}: tool_addition of ${JSON.stringify(block.tool?.name)}, which is not declared deferred with that definition`)
      }
      writer.write(`<tool_addition>${announced}</tool_addition>\n`)
    } else if (block?.type === 'tool_removal' && typeof block.name === 'string') {
      writer.write(`<tool_removal>${block.name}</tool_removal>\n`)
    } else {
      problem(`${where}: a system message may carry only tool_addition and tool_removal blocks, got ${JSON.stringify(block?.type)}`)
    }
  }
}

/**
 * The reply as a Chat Completions event stream: deltas, a finish chunk, a usage chunk, `[DONE]`; with
 * `reportsWrites` (OpenAI) the usage details carry `cache_write_tokens`.
 */
export function chatStream(reply: ModelReply, model: string, usage: PromptUsage, reportsWrites = false): string {
  const chunk = (delta: object, finish: string | null = null) =>
    ({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model, choices: [{ index: 0, delta, finish_reason: finish }] })
  const chunks: object[] = [chunk({ role: 'assistant', content: reply.call ? null : '' })]
  for (const piece of pieces(reply.text)) chunks.push(chunk({ content: piece }))
  if (reply.call) {
    const { id, name, arguments: json } = reply.call
    chunks.push(chunk({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: '' } }] }))
    for (const piece of pieces(json)) chunks.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }))
  }
  chunks.push(chunk({}, reply.call ? 'tool_calls' : 'stop'))
  chunks.push({
    id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 0, model, choices: [],
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.outputTokens,
      total_tokens: usage.promptTokens + usage.outputTokens,
      prompt_tokens_details: { cached_tokens: usage.cachedTokens, ...reportsWrites && { cache_write_tokens: usage.writtenTokens ?? 0 } },
    },
  })
  return chunks.map((item) => `data: ${JSON.stringify(item)}\n\n`).join('') + 'data: [DONE]\n\n'
}
