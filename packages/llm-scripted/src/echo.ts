import { derive, type ReadonlyList, type ToolCall } from 'dsh-core'
import type { ProjectedMessage } from 'dsh-llm'
import type { Reply } from './reply.ts'

interface UserIndex {
  /** Index of the last user message, -1 when there is none. */
  lastUser: number
  users: number
}

const userIndexes = new WeakMap<ReadonlyList<ProjectedMessage>, UserIndex>()

/** Where the last user message is and how many there are, carried forward as the history grows. */
function userMessages(messages: ReadonlyList<ProjectedMessage>): UserIndex {
  return derive(messages, userIndexes, () => ({ lastUser: -1, users: 0 }), (value, list, from) => {
    let { lastUser, users } = value
    for (let index = from; index < list.length; index++) {
      // a runtime-context snapshot is not a request to answer
      const message = list.at(index)!
      if (message.role !== 'user' || message.source !== undefined) continue
      lastUser = index
      users++
    }
    return { lastUser, users }
  })
}

const CALL_COMMAND = /^\/call\s+(\S+)(?:\s+([\s\S]*))?$/

/**
 * The `scripted-echo` model: answers the last user message. `/call NAME {json}` asks for one tool call
 * and, once a tool result follows the user message, reports it; anything else is echoed.
 */
export function echoReply(messages: ReadonlyList<ProjectedMessage>): Reply {
  const { lastUser, users: turnIndex } = userMessages(messages)
  const text = lastUser >= 0 ? (messages.at(lastUser) as { text: string }).text : ''
  const command = CALL_COMMAND.exec(text.trim())
  if (!command) return { text: `echo: ${text}`, toolCalls: [] }

  const [, name, json = ''] = command
  const result = lastToolResult(messages, lastUser)
  if (result) return { text: `tool ${result.name} returned: ${result.output}`, toolCalls: [] }

  const parsed = parseArguments(json.trim())
  if (typeof parsed === 'string') return { text: `cannot call ${name}: ${parsed}`, toolCalls: [] }
  const call: ToolCall = { id: `call_${turnIndex}_1`, name, arguments: parsed }
  return { text: '', toolCalls: [call] }
}

/** The last tool result after index `after`, read back from the end. */
function lastToolResult(messages: ReadonlyList<ProjectedMessage>, after: number): Extract<ProjectedMessage, { role: 'tool' }> | undefined {
  for (let index = messages.length - 1; index > after; index--) {
    const message = messages.at(index)!
    if (message.role === 'tool') return message
  }
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
