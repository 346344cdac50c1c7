import { oneLine } from 'dsh-core'
import type { SessionEvent } from 'dsh-harness'

/** How much of a resumed conversation to print: a number of terminal rows, or all of it. */
export type HistoryLimit = number | 'all'

/** The terminal's size when known (a pseudo-terminal of size 0 counts as unknown). */
export interface TerminalSize {
  rows?: number
  columns?: number
}

/** Rows printed around the history: the `resumed session` line, the `model:` line and the prompt. */
const FRAME_ROWS = 3
/** Rows assumed for a terminal that does not say. */
const DEFAULT_ROWS = 24

/**
 * The conversation of a session as the REPL showed it: each user message as `> …` lines, tool calls and
 * results as `→`/`←` lines, the model's text, and a line for a turn that ended badly or a compaction.
 */
export function conversationLines(events: readonly SessionEvent[]): string[] {
  const lines: string[] = []
  for (const event of events) {
    switch (event.type) {
      case 'user/message':
        lines.push(...event.data.text.split('\n').map((line) => `> ${line}`))
        break
      case 'assistant/message':
        if (event.data.text !== '') lines.push(...event.data.text.replace(/\n+$/, '').split('\n'))
        break
      case 'tool/call':
        lines.push(`→ ${event.data.name} ${JSON.stringify(event.data.arguments)}`)
        break
      case 'tool/result':
        lines.push(`← ${event.data.isError ? '(error) ' : ''}${oneLine(event.data.output, 200)}`)
        break
      case 'turn/end':
        if (event.data.reason === 'cancelled') lines.push('(cancelled)')
        else if (event.data.reason !== 'done') lines.push(`error: ${oneLine(event.data.error?.message ?? event.data.reason)}`)
        break
      case 'context/compaction':
        lines.push(`(compacted: the model now sees a summary of ${event.data.summary.length} characters in place of the turns before)`)
        break
    }
  }
  return lines
}

/** How many terminal rows `line` takes on a terminal `columns` wide. */
function rowsOf(line: string, columns: number | undefined): number {
  return columns ? Math.max(1, Math.ceil([...line].length / columns)) : 1
}

/** The line above a paged history: how many lines were left out, and the option that shows them. */
function leftOutNote(count: number): string {
  return `(… ${count} earlier ${count === 1 ? 'line' : 'lines'} not shown; add --history all to see them)`
}

/**
 * What `--resume` and `--continue` print in the REPL before the first prompt: the session id and its turn
 * count, then the conversation. Unless `limit` is `'all'`, only its end is printed — as many rows as `limit`
 * says, by default what fits on the terminal with the prompt — after a note saying how many earlier lines
 * were left out and that `--history all` shows them. Long lines count as the rows they wrap to.
 */
export function resumeHistory(id: string, events: readonly SessionEvent[], limit: HistoryLimit | undefined, size: TerminalSize): string {
  const turns = events.filter((event) => event.type === 'turn/start').length
  const head = `resumed session ${id} · ${turns} ${turns === 1 ? 'turn' : 'turns'}`
  const lines = conversationLines(events)
  const all = `${[head, ...lines].join('\n')}\n`
  if (limit === 'all') return all
  const columns = size.columns || undefined
  const page = limit ?? Math.max(2, (size.rows || DEFAULT_ROWS) - FRAME_ROWS)
  const rows = lines.map((line) => rowsOf(line, columns))
  if (rows.reduce((sum, count) => sum + count, 0) <= page) return all
  // the note takes rows of the page too (at most as many as with every line left out)
  const room = page - rowsOf(leftOutNote(lines.length), columns)
  let first = lines.length
  for (let used = 0; first > 0 && used + rows[first - 1]! <= room; first--) used += rows[first - 1]!
  // a last line taller than the page is shown anyway: it is where the session stopped
  if (first === lines.length) first = lines.length - 1
  return `${[head, leftOutNote(first), ...lines.slice(first)].join('\n')}\n`
}

/** A shell word for `text`: as it is when it needs no quoting, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`
}

/** The command that resumes session `id` from the same working folder: the bin, the app file if one was given, `--resume <id>`. */
export function resumeCommand(id: string, file: string | undefined): string {
  return ['dsh-stdio-demo', ...file === undefined ? [] : [shellWord(file)], '--resume', shellWord(id)].join(' ')
}

/** What the REPL prints on leaving a session that has a turn: its id and the command that resumes it. */
export function leavingLine(id: string, events: readonly SessionEvent[], file: string | undefined): string {
  if (!events.some((event) => event.type === 'turn/start')) return ''
  return `session ${id} · resume it with: ${resumeCommand(id, file)}\n`
}
