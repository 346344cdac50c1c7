import { oneLine } from 'dsh-core'
import type { SessionSummary } from 'dsh-harness'

/** The `--sessions` text: one line per session (id, last time, turns, first prompt), or a line saying there are none. */
export function formatSessions(summaries: readonly SessionSummary[], where: string): string {
  if (!summaries.length) return `no sessions in ${where}\n`
  return summaries.map((summary) => {
    // a fleet store (PostgreSQL) reads a held session without its lock and names its holder
    if (summary.busy && !summary.holder) return `${summary.id}  in use: another process is writing it\n`
    if (summary.broken !== undefined) return `${summary.id}  broken: ${summary.broken}\n`
    const prompt = summary.firstPrompt === undefined ? '(no prompt)' : JSON.stringify(oneLine(summary.firstPrompt, 60))
    const turns = `${summary.turns} ${summary.turns === 1 ? 'turn' : 'turns'}`
    const held = summary.busy && summary.holder ? `  in use by ${summary.holder.host}:${summary.holder.pid} since ${summary.holder.since}` : ''
    return `${summary.id}  ${summary.lastTime ?? '-'}  ${turns}  ${prompt}${held}\n`
  }).join('')
}
