import type { SessionEvent } from 'dsh-session'

const ANSWER_START = 160

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

/**
 * What `--resume` and `--continue` print before the first prompt: the session id and its turn count, then
 * the last exchange — the last user message and the start of the model's last text after it.
 */
export function resumeSummary(id: string, events: readonly SessionEvent[]): string {
  const turns = events.filter((event) => event.type === 'turn/start').length
  const lines = [`resumed session ${id} · ${turns} ${turns === 1 ? 'turn' : 'turns'}`]
  const asked = events.findLastIndex((event) => event.type === 'user/message')
  if (asked >= 0) {
    lines.push(`> ${oneLine((events[asked]!.data as { text: string }).text, ANSWER_START)}`)
    const answer = events.slice(asked).findLast((event) => event.type === 'assistant/message' && (event.data as { text: string }).text !== '')
    lines.push(answer ? oneLine((answer.data as { text: string }).text, ANSWER_START) : '(no answer)')
  }
  return `${lines.join('\n')}\n`
}
