import type { ToolCall } from 'dsh-core'
import type { ProjectedMessage } from 'dsh-llm'
import type { Reply } from './reply.ts'

const CALL_COMMAND = /^\/call\s+(\S+)(?:\s+([\s\S]*))?$/

/**
 * The `scripted-echo` model: answers the last user message. `/call NAME {json}` asks for one tool call
 * and, once a tool result follows the user message, reports it; anything else is echoed.
 */
export function echoReply(messages: readonly ProjectedMessage[]): Reply {
  let lastUser = -1
  let turnIndex = 0
  messages.forEach((message, index) => {
    if (message.role !== 'user') return
    lastUser = index
    turnIndex++
  })
  const text = lastUser >= 0 ? (messages[lastUser] as { text: string }).text : ''
  const command = CALL_COMMAND.exec(text.trim())
  if (!command) return { text: `echo: ${text}`, toolCalls: [] }

  const [, name, json = ''] = command
  const result = messages.slice(lastUser + 1).findLast((message) => message.role === 'tool')
  if (result?.role === 'tool') return { text: `tool ${result.name} returned: ${result.output}`, toolCalls: [] }

  const parsed = parseArguments(json.trim())
  if (typeof parsed === 'string') return { text: `cannot call ${name}: ${parsed}`, toolCalls: [] }
  const call: ToolCall = { id: `call_${turnIndex}_1`, name, arguments: parsed }
  return { text: '', toolCalls: [call] }
}

function parseArguments(json: string): Record<string, unknown> | string {
  if (!json) return {}
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch (error) {
    return `the arguments are not valid JSON (${(error as Error).message}): ${json}`
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return `the arguments must be a JSON object, got ${json}`
  }
  return value as Record<string, unknown>
}
