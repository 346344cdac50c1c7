import { oneLine } from 'dsh-core'
import type { SessionSummary } from 'dsh-harness'

/**
 * The `--sessions` text: one line per session (id, last time, turns, first prompt), or a line saying there are
 * none. A child session (a fork, a side question) follows its parent, indented one step per generation, with its
 * mode and description in place of the first prompt.
 */
export function formatSessions(summaries: readonly SessionSummary[], where: string): string {
  if (!summaries.length) return `no sessions in ${where}\n`
  const depth = depthOf(summaries)
  return summaries.map((summary) => {
    const indent = '  '.repeat(depth.get(summary.id) ?? 0)
    // a fleet store (PostgreSQL) reads a held session without its lock and names its holder
    if (summary.busy && !summary.holder) return `${indent}${summary.id}  in use: another process is writing it\n`
    if (summary.broken !== undefined) return `${indent}${summary.id}  broken: ${summary.broken}\n`
    const turns = `${summary.turns} ${summary.turns === 1 ? 'turn' : 'turns'}`
    const held = summary.busy && summary.holder ? `  in use by ${summary.holder.host}:${summary.holder.pid} since ${summary.holder.since}` : ''
    return `${indent}${summary.id}  ${summary.lastTime ?? '-'}  ${turns}  ${what(summary)}${held}\n`
  }).join('')
}

/** A root session's first prompt; a child's mode and description (its first prompt is its parent's). */
function what(summary: SessionSummary): string {
  if (summary.parent) return `${summary.parent.mode}: ${JSON.stringify(oneLine(summary.parent.description, 60))}`
  return summary.firstPrompt === undefined ? '(no prompt)' : JSON.stringify(oneLine(summary.firstPrompt, 60))
}

/** How many listed ancestors each session has (the listing puts children right under their parent). */
function depthOf(summaries: readonly SessionSummary[]): Map<string, number> {
  const depth = new Map<string, number>()
  for (const summary of summaries) {
    const parent = summary.parent && depth.get(summary.parent.id)
    depth.set(summary.id, parent === undefined ? 0 : parent + 1)
  }
  return depth
}
