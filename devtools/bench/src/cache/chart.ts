/** One line of the chart: a value per turn (index 0 is turn 1). */
export interface Series {
  label: string
  color: string
  dash?: string
  values: number[]
}

export interface ChartInput {
  title: string
  yLabel: string
  series: Series[]
  /** Turns that start a new process lifetime. */
  restarts: number[]
  /** Turns before which a tool was added, with its name. */
  additions: { turn: number; label: string }[]
}

const WIDTH = 960
const PLOT = { left: 78, top: 56, right: 930, bottom: 400 }
const LEGEND_TOP = 452

/** A line chart of per-turn values as a self-contained SVG document (no fonts or scripts to load). */
export function renderChart(input: ChartInput): string {
  const turns = Math.max(...input.series.map((series) => series.values.length))
  const top = niceCeiling(Math.max(1, ...input.series.flatMap((series) => series.values)))
  const x = (turn: number) => PLOT.left + ((turn - 1) / Math.max(1, turns - 1)) * (PLOT.right - PLOT.left)
  const y = (value: number) => PLOT.bottom - (value / top) * (PLOT.bottom - PLOT.top)
  const rows = Math.ceil(input.series.length / 2)
  const height = LEGEND_TOP + rows * 24 + 16
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="13">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="26" text-anchor="middle" font-size="17" font-weight="bold">${escape(input.title)}</text>`,
  ]
  for (let step = 0; step <= 5; step++) {
    const value = (top / 5) * step
    out.push(
      `<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${fmt(y(value))}" y2="${fmt(y(value))}" stroke="#e4e4e4"/>`,
      `<text x="${PLOT.left - 8}" y="${fmt(y(value) + 4)}" text-anchor="end" fill="#444">${value.toLocaleString('en-US')}</text>`,
    )
  }
  for (const turn of input.restarts) {
    out.push(`<line x1="${fmt(x(turn))}" x2="${fmt(x(turn))}" y1="${PLOT.top}" y2="${PLOT.bottom}" stroke="#9a9a9a" stroke-dasharray="2 4"/>`)
  }
  for (const { turn, label } of input.additions) {
    out.push(
      `<line x1="${fmt(x(turn))}" x2="${fmt(x(turn))}" y1="${PLOT.top}" y2="${PLOT.bottom}" stroke="#b07aa1" stroke-width="1.5"/>`,
      `<text x="${fmt(x(turn) + 4)}" y="${PLOT.top + 12}" fill="#7b4f72" font-size="11">+ ${escape(label)}</text>`,
    )
  }
  out.push(`<rect x="${PLOT.left}" y="${PLOT.top}" width="${PLOT.right - PLOT.left}" height="${PLOT.bottom - PLOT.top}" fill="none" stroke="#333"/>`)
  for (let turn = 1; turn <= turns; turn++) {
    const tick = turn === 1 || turn % 3 === 0
    out.push(`<line x1="${fmt(x(turn))}" x2="${fmt(x(turn))}" y1="${PLOT.bottom}" y2="${PLOT.bottom + (tick ? 6 : 3)}" stroke="#333"/>`)
    if (tick) out.push(`<text x="${fmt(x(turn))}" y="${PLOT.bottom + 20}" text-anchor="middle" fill="#444">${turn}</text>`)
  }
  out.push(
    `<text x="${(PLOT.left + PLOT.right) / 2}" y="${PLOT.bottom + 40}" text-anchor="middle">turn (dotted lines: process restarts; purple lines: a tool is added)</text>`,
    `<text transform="translate(20 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle">${escape(input.yLabel)}</text>`,
  )
  for (const series of input.series) {
    const points = series.values.map((value, index) => `${fmt(x(index + 1))},${fmt(y(value))}`)
    const dash = series.dash ? ` stroke-dasharray="${series.dash}"` : ''
    out.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${series.color}" stroke-width="2"${dash} stroke-linejoin="round"/>`)
  }
  input.series.forEach((series, index) => {
    const left = index % 2 === 0 ? PLOT.left : (PLOT.left + PLOT.right) / 2
    const top = LEGEND_TOP + Math.floor(index / 2) * 24
    const dash = series.dash ? ` stroke-dasharray="${series.dash}"` : ''
    out.push(
      `<line x1="${left}" x2="${left + 34}" y1="${top}" y2="${top}" stroke="${series.color}" stroke-width="2.5"${dash}/>`,
      `<text x="${left + 42}" y="${top + 4}">${escape(series.label)}</text>`,
    )
  })
  out.push('</svg>')
  return out.join('\n') + '\n'
}

/** The smallest axis top at or above `value` whose five grid steps are round numbers. */
function niceCeiling(value: number): number {
  const step = value / 5
  const power = 10 ** Math.floor(Math.log10(step))
  const nice = [1, 1.5, 2, 2.5, 3, 4, 5, 10].find((factor) => factor * power >= step)! * power
  return nice * 5
}

const fmt = (value: number) => String(Math.round(value * 10) / 10)

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}
