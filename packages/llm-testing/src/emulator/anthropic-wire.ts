import type { IncomingHttpHeaders } from 'node:http'
import { DEFAULT_TOOL_UPDATE_BETA } from 'dsh-llm/http'
import { PromptWriter, isObject, pieces, type ModelReply, type PromptUsage, type ReadRequest, type Turn } from './prompt.ts'

const TOOL_KEYS = ['name', 'description', 'input_schema', 'defer_loading']
const definitionOf = (tool: Record<string, any>) => ({ name: tool.name, description: tool.description, input_schema: tool.input_schema })

/**
 * Checks a Messages request the way `dsh-llm-anthropic` must send it and renders what the model sees:
 * the tools declared up front (not the `defer_loading` ones), the system prompt, then the messages, in
 * which a `tool_addition` block contributes the definition it announces, at its place in history.
 */
export function readMessagesRequest(body: unknown, headers: IncomingHttpHeaders, models: readonly string[]): ReadRequest {
  const problems: string[] = []
  const problem = (message: string) => problems.push(`messages api: ${message}`)
  const writer = new PromptWriter()
  const turns: Turn[] = []
  if (!headers['x-api-key'] && !String(headers.authorization ?? '').startsWith('Bearer ')) problem('no API key header')
  if (!headers['anthropic-version']) problem('no anthropic-version header')
  if (!isObject(body)) {
    problem('the body is not a JSON object')
    return { problems, prompt: writer.finish([]), turns }
  }
  if (!models.includes(body.model)) problem(`model ${JSON.stringify(body.model)} is not served; models: ${models.join(', ')}`)
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) problem(`max_tokens ${JSON.stringify(body.max_tokens)} is not a whole number >= 1`)
  if (body.stream !== true) problem('stream is not true')
  if (body.system !== undefined && typeof body.system !== 'string') problem('system is not a string')

  const declared: string[] = []
  const deferred = new Map<string, string>()
  const upFront: Record<string, any>[] = []
  for (const [index, tool] of (Array.isArray(body.tools) ? body.tools : []).entries()) {
    if (!isObject(tool) || typeof tool.name !== 'string' || typeof tool.description !== 'string' || !isObject(tool.input_schema)) {
      problem(`tools[${index}] is not { name, description, input_schema }`)
      continue
    }
    const extra = Object.keys(tool).filter((key) => !TOOL_KEYS.includes(key))
    if (extra.length) problem(`tools[${index}] has unknown keys ${extra.join(', ')}`)
    if (tool.defer_loading !== undefined && tool.defer_loading !== true) problem(`tools[${index}].defer_loading is not true`)
    if (declared.includes(tool.name)) problem(`tool ${JSON.stringify(tool.name)} is declared twice`)
    declared.push(tool.name)
    if (tool.defer_loading) deferred.set(tool.name, JSON.stringify(definitionOf(tool)))
    else upFront.push(tool)
  }
  for (const tool of upFront) writer.tool(tool.name, definitionOf(tool))
  if (body.system) writer.write(`<|system|>\n${body.system}\n<|end|>\n`)

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
      let rendered = '<|user|>\n'
      for (const block of content) {
        if (block?.type !== 'tool_result' || typeof block.tool_use_id !== 'string' || typeof block.content !== 'string') {
          problem(`${where}: a user block that is not a tool_result with string content`)
          continue
        }
        if (!pending.delete(block.tool_use_id)) problem(`${where}: a result for ${JSON.stringify(block.tool_use_id)}, which the previous assistant message did not call`)
        rendered += `<tool_result id="${block.tool_use_id}"${block.is_error ? ' error' : ''}>${block.content}</tool_result>`
        turns.push({ role: 'tool', name: callNames.get(block.tool_use_id) ?? '', output: block.content })
      }
      if (pending.size) problem(`${where}: tool calls ${[...pending].join(', ')} got no result`)
      pending = new Set()
      writer.write(`${rendered}\n<|end|>\n`)
      return
    }
    if (message.role === 'assistant') {
      if (lastSpoken !== 'user') problem(`${where}: an assistant message that does not follow a user message`)
      lastSpoken = 'assistant'
      if (!Array.isArray(content) || content.length === 0) return problem(`${where}: assistant content is not a non-empty block list`)
      let rendered = '<|assistant|>\n'
      for (const block of content) {
        if (block?.type === 'text' && typeof block.text === 'string') rendered += block.text
        else if (block?.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string' && isObject(block.input)) {
          callNames.set(block.id, block.name)
          pending.add(block.id)
          rendered += `<tool_call>${JSON.stringify({ name: block.name, input: block.input })}</tool_call>`
        } else {
          problem(`${where}: an assistant block that is neither text nor tool_use`)
        }
      }
      writer.write(`${rendered}\n<|end|>\n`)
      turns.push({ role: 'assistant' })
      return
    }
    problem(`${where}: unknown role ${JSON.stringify(message.role)}`)
  })
  if (messages.length && (messages[0] as { role?: string }).role !== 'user') problem('the first message is not a user message')
  if (lastSpoken !== 'user') problem('the last user or assistant message is not a user message, so there is nothing to answer')
  if (pending.size) problem(`the request ends before the results of tool calls ${[...pending].join(', ')}`)
  const beta = headers['anthropic-beta']
  if (updates && beta !== DEFAULT_TOOL_UPDATE_BETA) problem(`tool-update blocks without anthropic-beta: ${DEFAULT_TOOL_UPDATE_BETA} (got ${JSON.stringify(beta)})`)
  if (!updates && beta !== undefined) problem(`anthropic-beta ${JSON.stringify(beta)} on a request without tool-update blocks`)
  return { problems, prompt: writer.finish(declared), turns }
}

/** The reply as a Messages event stream, with the cache read in `message_start`'s usage. */
export function messagesStream(reply: ModelReply, model: string, usage: PromptUsage): string {
  const events: { type: string; [key: string]: unknown }[] = [{
    type: 'message_start',
    message: {
      id: 'msg_bench', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
      usage: {
        input_tokens: usage.promptTokens - usage.cachedTokens,
        cache_read_input_tokens: usage.cachedTokens,
        cache_creation_input_tokens: 0,
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
