import type { ChatMessage, ReadonlyList, ToolSchema } from 'dsh-core'
import type { Session } from 'dsh-session'

/** About four characters a token: the estimate used for what no provider has counted yet. */
const CHARS_PER_TOKEN = 4

/** What the next request would carry, as far as its size goes. */
export interface RequestSize {
  system: string
  tools: readonly ToolSchema[]
  messages: ReadonlyList<ChatMessage>
}

/** Tokens of `chars` characters of request text, estimated. */
export function estimateTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN)
}

/**
 * How many tokens the next request will hold: the provider's own count from the last response (its
 * prompt plus its answer, which the next request repeats), plus an estimate of what was logged since.
 * With no usage to start from — a new session, a provider that reports none, a compaction or a header
 * change since, or a header about to change (`headerChanged`) — the whole request is estimated.
 */
export function estimateFill(session: Session, next: RequestSize, headerChanged = false): number {
  let appended = 0
  // a refusal follows its message: met first going back, it keeps the message out of the count
  const refused = new Set<number>()
  // Back from the end to the last response: what was logged since, never the whole log.
  for (let seq = headerChanged ? 0 : session.lastSeq; seq >= 1; seq--) {
    const event = session.event(seq)!
    if (event.type === 'user/refused') refused.add(event.data.messageSeq)
    if (refused.has(seq)) continue
    if (event.type === 'assistant/message') {
      const { usage } = event.data
      if (usage) return usage.inputTokens + usage.outputTokens + estimateTokens(appended)
      break
    }
    if (event.type === 'context/compaction' || event.type === 'request/header') break
    if (event.type === 'user/message' || event.type === 'tool/result' || event.type === 'developer/message') {
      appended += JSON.stringify(event.data).length
    }
  }
  return estimateTokens(next.system.length + toolsLength(next.tools) + JSON.stringify(next.messages).length)
}

/**
 * Tokens of what no compaction can remove: the header and the messages logged after the cut at
 * `throughSeq` (on a turn's first step, its user message).
 */
export function estimateKept(session: Session, header: Pick<RequestSize, 'system' | 'tools'>, throughSeq: number): number {
  let chars = header.system.length + toolsLength(header.tools)
  for (let seq = throughSeq + 1; seq <= session.lastSeq; seq++) {
    const event = session.event(seq)!
    if (event.type === 'user/message' || event.type === 'tool/result' || event.type === 'developer/message') {
      chars += JSON.stringify(event.data).length
    }
  }
  return estimateTokens(chars)
}

// The logged tool list is one frozen array until the header changes; measure it once.
const toolLengths = new WeakMap<readonly ToolSchema[], number>()

function toolsLength(tools: readonly ToolSchema[]): number {
  let length = toolLengths.get(tools)
  if (length === undefined) {
    length = JSON.stringify(tools).length
    if (Object.isFrozen(tools)) toolLengths.set(tools, length)
  }
  return length
}
