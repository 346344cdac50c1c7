import type { IncomingHttpHeaders } from 'node:http'
import { DEFAULT_TOOL_UPDATE_BETA } from 'dsh-llm/http'
import { PromptWriter, isObject, pieces, type ModelReply, type PromptUsage, type ReadRequest, type Turn } from './prompt.ts'
import { MAX_MARKS } from './provider-cache.ts'
import { betaNames, readAnthropicToolChanges, TOOL_CHANGES_BETA, type AnthropicTools } from './anthropic-tool-changes.ts'

const TOOL_KEYS = ['name', 'description', 'input_schema', 'defer_loading', 'cache_control']
/** Anthropic's server-side tool search tools, the documented companion of `defer_loading`. */
const TOOL_SEARCH = /^tool_search_tool_(regex|bm25)_\d+$/
const definitionOf = (tool: Record<string, any>) => ({ name: tool.name, description: tool.description, input_schema: tool.input_schema })

/**
 * Checks a Messages request the way `dsh-llm-anthropic` must send it to `profile`'s endpoint and renders
 * what the model sees: the tools declared up front (not the `defer_loading` ones), the system prompt, then
 * the messages, in which a `tool_addition` block contributes the definition it announces, at its place in
 * history. Each tool, system part and content block is one block of the prompt.
 * - `deepseek` (DeepSeek's Anthropic-compatible route): system-role messages of tool-update blocks with
 *   the beta header (.agents/notes/implemented/feature/2026-11-30-effective-tool-header.md); no
 *   `cache_control`, which DeepSeek does not document.
 * - `anthropic`: `cache_control` breakpoints on tools, system text blocks and content blocks (at most 4,
 *   1-hour ones before 5-minute ones); system-role messages of tool-change blocks by Anthropic's rules
 *   (`readAnthropicToolChanges`); `defer_loading` beside a tool search tool, or on a tool a `tool_addition`
 *   of the request makes available (with the mid-conversation beta).
 */
export function readMessagesRequest(body: unknown, headers: IncomingHttpHeaders, models: readonly string[], profile: 'deepseek' | 'anthropic' = 'deepseek'): ReadRequest {
  const problems: string[] = []
  const problem = (message: string) => problems.push(`messages api: ${message}`)
  const writer = new PromptWriter()
  const turns: Turn[] = []
  const ttls: string[] = []
  /** Reads a block's `cache_control` and marks the block written last. */
  const marker = (value: unknown, where: string) => {
    if (value === undefined) return
    if (profile !== 'anthropic') return problem(`${where}: cache_control on the ${profile} route, whose provider does not document it`)
    const ttl = isObject(value) ? value.ttl ?? '5m' : undefined
    const keys = isObject(value) ? Object.keys(value).filter((key) => key !== 'type' && key !== 'ttl') : []
    if (!isObject(value) || value.type !== 'ephemeral' || (ttl !== '5m' && ttl !== '1h') || keys.length) {
      return problem(`${where}: cache_control ${JSON.stringify(value)} is not { type: 'ephemeral', ttl?: '5m' | '1h' }`)
    }
    if (ttl === '1h' && ttls.includes('5m')) problem(`${where}: a 1h cache_control after a 5m one (1-hour entries must come first)`)
    ttls.push(ttl)
    writer.mark(ttl)
  }
  if (!headers['x-api-key'] && !String(headers.authorization ?? '').startsWith('Bearer ')) problem('no API key header')
  if (!headers['anthropic-version']) problem('no anthropic-version header')
  if (!isObject(body)) {
    problem('the body is not a JSON object')
    return { problems, prompt: writer.finish([]), turns }
  }
  if (!models.includes(body.model)) problem(`model ${JSON.stringify(body.model)} is not served; models: ${models.join(', ')}`)
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) problem(`max_tokens ${JSON.stringify(body.max_tokens)} is not a whole number >= 1`)
  if (body.stream !== true) problem('stream is not true')

  const declared: string[] = []
  const deferred = new Map<string, string>()
  const upFront: Record<string, any>[] = []
  const tools: unknown[] = Array.isArray(body.tools) ? body.tools : []
  const searchable = tools.some((tool) => isObject(tool) && typeof tool.type === 'string' && TOOL_SEARCH.test(tool.type))
  for (const [index, tool] of tools.entries()) {
    if (profile === 'anthropic' && isObject(tool) && typeof tool.type === 'string' && TOOL_SEARCH.test(tool.type) && typeof tool.name === 'string') {
      upFront.push(tool)
      continue
    }
    if (!isObject(tool) || typeof tool.name !== 'string' || typeof tool.description !== 'string' || !isObject(tool.input_schema)) {
      problem(`tools[${index}] is not { name, description, input_schema }`)
      continue
    }
    const extra = Object.keys(tool).filter((key) => !TOOL_KEYS.includes(key))
    if (extra.length) problem(`tools[${index}] has unknown keys ${extra.join(', ')}`)
    if (tool.defer_loading !== undefined && tool.defer_loading !== true) problem(`tools[${index}].defer_loading is not true`)
    if (declared.includes(tool.name)) problem(`tool ${JSON.stringify(tool.name)} is declared twice`)
    declared.push(tool.name)
    if (tool.defer_loading) {
      deferred.set(tool.name, JSON.stringify(definitionOf(tool)))
      if (tool.cache_control !== undefined) problem(`tools[${index}]: cache_control on a deferred tool`)
    } else upFront.push(tool)
  }
  for (const [index, tool] of upFront.entries()) {
    writer.tool(tool.name, tool.type ? { type: tool.type, name: tool.name } : definitionOf(tool))
    marker(tool.cache_control, `tools[${index}]`)
  }
  readSystem(body.system, profile, writer, problem, marker)
  const anthropicTools: AnthropicTools = { deferred, upFront: new Set(upFront.map((tool) => tool.name)), referenced: new Set(), inline: new Set() }

  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : []
  if (messages.length === 0) problem('messages is not a non-empty array')
  const callNames = new Map<string, string>()
  let pending = new Set<string>()
  let updates = 0
  let lastSpoken: string | undefined
  messages.forEach((message, index) => {
    const where = `messages[${index}]`
    if (!isObject(message)) return problem(`${where} is not an object`)
    const content = message.content
    if (message.role === 'system') {
      updates++
      if (profile === 'anthropic') return readAnthropicToolChanges(messages, index, headers, anthropicTools, writer, problem, marker)
      if (!Array.isArray(content) || content.length === 0) return problem(`${where}: a system message without tool-update blocks`)
      for (const block of content) {
        if (block?.type === 'tool_addition') {
          const tool = block.tool
          const announced = isObject(tool) ? JSON.stringify(definitionOf(tool)) : undefined
          if (!announced || deferred.get(tool.name) !== announced) {
            problem(`${where}: tool_addition of ${JSON.stringify(tool?.name)}, which is not declared deferred with that definition`)
          }
          writer.write(`<tool_addition>${JSON.stringify(tool)}</tool_addition>\n`)
        } else if (block?.type === 'tool_removal' && typeof block.name === 'string') {
          writer.write(`<tool_removal>${block.name}</tool_removal>\n`)
        } else {
          problem(`${where}: a system message may carry only tool_addition and tool_removal blocks, got ${JSON.stringify(block?.type)}`)
        }
      }
      return
    }
    if (message.role === 'user') {
      lastSpoken = 'user'
      if (typeof content === 'string') {
        if (pending.size) problem(`${where}: user text before the results of tool calls ${[...pending].join(', ')}`)
        writer.write(`<|user|>\n${content}\n<|end|>\n`)
        turns.push({ role: 'user', text: content })
        return
      }
      if (!Array.isArray(content) || content.length === 0) return problem(`${where}: user content is neither a string nor blocks`)
      content.forEach((block: any, at: number) => {
        const open = at === 0 ? '<|user|>\n' : ''
        if (block?.type === 'text' && typeof block.text === 'string') {
          if (pending.size) problem(`${where}: user text before the results of tool calls ${[...pending].join(', ')}`)
          writer.write(`${open}${block.text}`)
          turns.push({ role: 'user', text: block.text })
        } else if (block?.type === 'tool_result' && typeof block.tool_use_id === 'string' && typeof block.content === 'string') {
          if (!pending.delete(block.tool_use_id)) problem(`${where}: a result for ${JSON.stringify(block.tool_use_id)}, which the previous assistant message did not call`)
          writer.write(`${open}<tool_result id="${block.tool_use_id}"${block.is_error ? ' error' : ''}>${block.content}</tool_result>`)
          turns.push({ role: 'tool', name: callNames.get(block.tool_use_id) ?? '', output: block.content })
        } else {
          return problem(`${where}: a user block that is neither text nor a tool_result with string content`)
        }
        marker(block.cache_control, `${where}.content[${at}]`)
      })
      if (pending.size) problem(`${where}: tool calls ${[...pending].join(', ')} got no result`)
      pending = new Set()
      writer.extend('\n<|end|>\n')
      return
    }
    if (message.role === 'assistant') {
      if (lastSpoken !== 'user') problem(`${where}: an assistant message that does not follow a user message`)
      lastSpoken = 'assistant'
      if (!Array.isArray(content) || content.length === 0) return problem(`${where}: assistant content is not a non-empty block list`)
      content.forEach((block: any, at: number) => {
        const open = at === 0 ? '<|assistant|>\n' : ''
        if (block?.type === 'text' && typeof block.text === 'string') writer.write(`${open}${block.text}`)
        else if (block?.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string' && isObject(block.input)) {
          callNames.set(block.id, block.name)
          pending.add(block.id)
          writer.write(`${open}<tool_call>${JSON.stringify({ name: block.name, input: block.input })}</tool_call>`)
        } else {
          return problem(`${where}: an assistant block that is neither text nor tool_use`)
        }
        marker(block.cache_control, `${where}.content[${at}]`)
      })
      writer.extend('\n<|end|>\n')
      turns.push({ role: 'assistant' })
      return
    }
    problem(`${where}: unknown role ${JSON.stringify(message.role)}`)
  })
  if (messages.length && (messages[0] as { role?: string }).role !== 'user') problem('the first message is not a user message')
  if (lastSpoken !== 'user') problem('the last user or assistant message is not a user message, so there is nothing to answer')
  if (pending.size) problem(`the request ends before the results of tool calls ${[...pending].join(', ')}`)
  if (writer.markCount > MAX_MARKS) problem(`${writer.markCount} cache_control breakpoints; at most ${MAX_MARKS} are allowed`)
  if (profile === 'anthropic' && !searchable) {
    for (const name of deferred.keys()) {
      if (!anthropicTools.referenced.has(name) || !betaNames(headers).has(TOOL_CHANGES_BETA)) {
        problem(`tool ${JSON.stringify(name)} has defer_loading without a tool search tool or a tool_addition that makes it available`)
      }
    }
  }
  const beta = headers['anthropic-beta']
  if (updates && profile !== 'anthropic' && beta !== DEFAULT_TOOL_UPDATE_BETA) problem(`tool-update blocks without anthropic-beta: ${DEFAULT_TOOL_UPDATE_BETA} (got ${JSON.stringify(beta)})`)
  if (!updates && beta !== undefined && profile !== 'anthropic') problem(`anthropic-beta ${JSON.stringify(beta)} on a request without tool-update blocks`)
  return { problems, prompt: writer.finish(declared), turns, ...profile === 'anthropic' && updates > 0 && { announcesToolChanges: true } }
}

/** The system prompt: a string, or (Anthropic) text blocks that may carry breakpoints. */
function readSystem(
  system: unknown, profile: string, writer: PromptWriter, problem: (message: string) => void, marker: (value: unknown, where: string) => void,
) {
  if (system === undefined || system === '') return
  if (typeof system === 'string') return writer.write(`<|system|>\n${system}\n<|end|>\n`)
  if (profile !== 'anthropic' || !Array.isArray(system) || system.length === 0) return problem('system is not a string')
  system.forEach((block: any, index) => {
    if (block?.type !== 'text' || typeof block.text !== 'string') return problem(`system[${index}] is not { type: 'text', text }`)
    writer.write(`${index === 0 ? '<|system|>\n' : ''}${block.text}`)
    marker(block.cache_control, `system[${index}]`)
  })
  writer.extend('\n<|end|>\n')
}

/**
 * The reply as a Messages event stream, with the cache read in `message_start`'s usage and, when the request
 * asked for cache diagnostics, the verdict on the message (`diagnostics`, as SDK 1.17 types `Message`).
 */
export function messagesStream(reply: ModelReply, model: string, usage: PromptUsage, own: { id: string; diagnostics?: unknown } = { id: 'msg_bench' }): string {
  const events: { type: string; [key: string]: unknown }[] = [{
    type: 'message_start',
    message: {
      id: own.id, ...own.diagnostics !== undefined && { diagnostics: own.diagnostics }, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
      usage: {
        input_tokens: usage.promptTokens - usage.cachedTokens - (usage.writtenTokens ?? 0),
        cache_read_input_tokens: usage.cachedTokens,
        cache_creation_input_tokens: usage.writtenTokens ?? 0,
        output_tokens: 1,
      },
    },
  }]
  let index = 0
  if (reply.text) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } })
    for (const text of pieces(reply.text)) events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } })
    events.push({ type: 'content_block_stop', index: index++ })
  }
  if (reply.call) {
    const { id, name, arguments: json } = reply.call
    events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id, name, input: {} } })
    for (const partial_json of pieces(json)) events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } })
    events.push({ type: 'content_block_stop', index: index++ })
  }
  events.push(
    { type: 'message_delta', delta: { stop_reason: reply.call ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.outputTokens } },
    { type: 'message_stop' },
  )
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('')
}
