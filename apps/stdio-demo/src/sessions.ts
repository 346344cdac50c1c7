import { oneLine } from 'dsh-core'
import type { SessionSummary } from 'dsh-harness'

/** The `--sessions` text: one line per session (id, last time, turns, first prompt), or a line saying there are none. */
export function formatSessions(summaries: readonly SessionSummary[], where: string): string {
  if (!summaries.length) return `no sessions in ${where}\n`
  return summaries.map((summary) => {
    if (summary.busy) return `${summary.id}  in use: another process is writing it\n`
    if (summary.broken !== undefined) return `${summary.id}  broken: ${summary.broken}\n`
    const prompt = summary.firstPrompt === undefined ? '(no prompt)' : JSON.stringify(oneLine(summary.firstPrompt, 60))
    const turns = `${summary.turns} ${summary.turns === 1 ? 'turn' : 'turns'}`
    return `${summary.id}  ${summary.lastTime ?? '-'}  ${turns}  ${prompt}\n`
  }).join('')
}
