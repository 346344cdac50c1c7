import { COMPACTION_INSTRUCTION, SUMMARY_PREFIX, type ReadonlyList } from 'dsh-core'
import type { ProjectedMessage } from 'dsh-llm'
import type { Reply } from './reply.ts'

const ITEM_CHARS = 80
const KEPT_REQUESTS = 6
const ASKED = '- user asked: '

/** True when `messages` ends with dsh-core's compaction instruction: the request asks for a summary. */
export function isCompactionRequest(messages: ReadonlyList<{ role: string; text?: string }>): boolean {
  const last = messages.at(-1)
  return last?.role === 'user' && last.text === COMPACTION_INSTRUCTION
}

/**
 * The offline model's answer to a compaction request: a deterministic summary built from the
 * conversation before the instruction — the last few user requests (an earlier summary's included), the
 * tools called with how often, and the last answer — each item cut to one line, so the summary stays
 * small however often a session compacts.
 */
export function compactionReply(messages: ReadonlyList<ProjectedMessage>): Reply {
  const conversation = [...messages].slice(0, -1)
  const asked: string[] = []
  const calls = new Map<string, number>()
  let lastAnswer = ''
  for (const message of conversation) {
    if (message.role === 'user') {
      if (message.text.startsWith(SUMMARY_PREFIX)) {
        asked.push(...message.text.split('\n').filter((line) => line.startsWith(ASKED)))
      } else {
        asked.push(ASKED + clip(message.text))
      }
    } else if (message.role === 'assistant') {
      for (const call of message.toolCalls) calls.set(call.name, (calls.get(call.name) ?? 0) + 1)
      if (message.text) lastAnswer = message.text
    }
  }
  const lines = asked.slice(-KEPT_REQUESTS)
  if (calls.size) lines.push(`- tools called: ${[...calls].map(([name, count]) => `${name} ×${count}`).join(', ')}`)
  if (lastAnswer) lines.push(`- last answer: ${clip(lastAnswer)}`)
  const count = conversation.filter((message) => message.role !== 'tool-update').length
  return { text: [`${count} messages compacted.`, ...lines].join('\n'), toolCalls: [] }
}

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > ITEM_CHARS ? `${flat.slice(0, ITEM_CHARS - 1)}…` : flat
}
