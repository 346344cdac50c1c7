import type { ForkRun } from './forks.ts'

/** The fork figures as a table: one row per route, each cell one request's cached share. */
export function printForks(runs: readonly ForkRun[]) {
  const header = ['forks: cached share of', 'fork 1st', 'fresh 1st', 'parent after fork', 'parent after fresh', 'side', 'parent after side', 'read: fork 1st', 'fresh 1st']
  const widths = [30, 9, 10, 18, 19, 7, 18, 15, 10]
  const row = (cells: (string | number)[]) => cells.map((cell, index) => index === 0 ? String(cell).padEnd(widths[index]!) : String(cell).padStart(widths[index]!)).join(' ')
  console.log(row(header))
  for (const run of runs) {
    console.log(row([run.key, run.forkFirst.toFixed(4), run.freshFirst.toFixed(4), run.parentAfterFork.toFixed(4), run.parentAfterFresh.toFixed(4), run.side.toFixed(4), run.parentAfterSide.toFixed(4), run.forkFirstTokens, run.freshFirstTokens]))
  }
}
