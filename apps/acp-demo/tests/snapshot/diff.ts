/** The command that rewrites the expected files from a replay run. */
export const REFRESH_COMMAND = 'DSH_SNAPSHOT=refresh npx vitest run apps/acp-demo/tests/snapshot'

/** One fixture file whose expected text differs from what the run produced. */
export interface FileDifference {
  /** Path of the fixture file, as shown to the reader. */
  file: string
  diff: string
}

type Op = { kind: ' ' | '-' | '+'; text: string; expected?: number; actual?: number }

const CONTEXT = 2
const MAX_HUNKS = 3
const WIDTH = 160

// Longest common subsequence on lines: fixtures are tens of lines, so the quadratic table is fine.
function operations(expected: string[], actual: string[]): Op[] {
  const rows = expected.length
  const cols = actual.length
  const table = Array.from({ length: rows + 1 }, () => new Uint32Array(cols + 1))
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = cols - 1; j >= 0; j--) {
      table[i][j] = expected[i] === actual[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1])
    }
  }
  const ops: Op[] = []
  let i = 0
  let j = 0
  while (i < rows || j < cols) {
    if (i < rows && j < cols && expected[i] === actual[j]) ops.push({ kind: ' ', text: expected[i], expected: ++i, actual: ++j })
    else if (i < rows && (j === cols || table[i + 1][j] >= table[i][j + 1])) ops.push({ kind: '-', text: expected[i], expected: ++i })
    else ops.push({ kind: '+', text: actual[j], actual: ++j })
  }
  return ops
}

// A long JSON line is shown as a window around the first column where it differs from its counterpart.
function clip(text: string, counterpart: string | undefined): string {
  if (text.length <= WIDTH) return text
  let column = 0
  if (counterpart !== undefined) while (column < text.length && text[column] === counterpart[column]) column++
  const start = Math.max(0, Math.min(column - WIDTH / 4, text.length - WIDTH))
  return `${start > 0 ? '…' : ''}${text.slice(start, start + WIDTH)}${start + WIDTH < text.length ? '…' : ''}`
}

/**
 * A readable line diff: the first hunks where `actual` departs from `expected`, each headed by its line
 * numbers, with two lines of context, `-` for expected lines and `+` for produced ones. Empty when equal.
 */
export function lineDiff(expected: string, actual: string): string {
  if (expected === actual) return ''
  const ops = operations(expected.split('\n'), actual.split('\n'))
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]))
  const hunks: [number, number][] = []
  for (const index of changed) {
    const last = hunks.at(-1)
    if (last && index - last[1] <= CONTEXT * 2 + 1) last[1] = index
    else hunks.push([index, index])
  }
  const lines: string[] = []
  for (const [from, to] of hunks.slice(0, MAX_HUNKS)) {
    const start = Math.max(0, from - CONTEXT)
    const end = Math.min(ops.length - 1, to + CONTEXT)
    const removed = ops.slice(from, to + 1).filter((op) => op.kind === '-')
    const added = ops.slice(from, to + 1).filter((op) => op.kind === '+')
    const span = ops.slice(start, end + 1)
    const at = (key: 'expected' | 'actual') => span.find((op) => op[key] !== undefined)?.[key] ?? 'end'
    lines.push(`@@ expected line ${at('expected')}, produced line ${at('actual')} @@`)
    for (let index = start; index <= end; index++) {
      const op = ops[index]
      const counterpart = op.kind === '-' ? added[removed.indexOf(op)]?.text : op.kind === '+' ? removed[added.indexOf(op)]?.text : undefined
      lines.push(`${op.kind} ${clip(op.text, counterpart)}`)
    }
  }
  if (hunks.length > MAX_HUNKS) lines.push(`… and ${hunks.length - MAX_HUNKS} more differing region(s)`)
  return lines.join('\n')
}

/** The failure message of a scenario: every differing file with its diff, then how to accept the change. */
export function report(scenario: string, differences: readonly FileDifference[]): string {
  const parts = differences.map(({ file, diff }) => `--- ${file} (expected) / +++ produced\n${diff}`)
  return [
    `snapshot "${scenario}" differs from its fixture in ${differences.map((d) => d.file).join(', ')}`,
    ...parts,
    `If the change is intended, refresh the fixtures and review the diff:\n  ${REFRESH_COMMAND}`,
  ].join('\n\n')
}
