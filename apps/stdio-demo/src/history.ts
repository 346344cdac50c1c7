import { promises as fs } from 'node:fs'
import { dirname, join } from 'node:path'
import type { Harness } from 'dsh-harness'

/** How many input lines the REPL keeps across runs. */
export const HISTORY_LINES = 500

/** The REPL's input history: `<state>/dsh/stdio-history`, next to the sessions (see dsh-session). */
export function historyFile(harness: Harness, env: NodeJS.ProcessEnv = process.env): string {
  return join(harness.stateFolder(env), 'stdio-history')
}

/**
 * The stored lines, oldest first, at most `HISTORY_LINES`; none when there is no file yet. A file that
 * cannot be read is no history, not a failed start: the REPL works without it.
 */
export async function loadHistory(path: string): Promise<string[]> {
  const text = await fs.readFile(path, 'utf8').catch(() => '')
  return text.split('\n').filter((line) => line !== '').slice(-HISTORY_LINES)
}

/**
 * Keeps the history file in step with the REPL's list, each write replacing the file whole (through a
 * temp file and a rename, so a second REPL never reads half a file). Writes go one at a time, the latest
 * list winning; `settled()` waits for the last one. A failed write is reported once through `warn`.
 */
export class HistoryFile {
  private latest: string[] | undefined
  private writing: Promise<void> | undefined
  private warned = false

  constructor(readonly path: string, private readonly warn: (message: string) => void, private readonly harness: Harness) {}

  /** Stores `lines` (oldest first), keeping the last `HISTORY_LINES`. */
  save(lines: readonly string[]): void {
    this.latest = lines.slice(-HISTORY_LINES)
    this.writing ??= this.drain()
  }

  async settled(): Promise<void> {
    while (this.writing) await this.writing
  }

  private async drain(): Promise<void> {
    const temp = `${this.path}.${process.pid}.tmp`
    try {
      while (this.latest) {
        const lines = this.latest
        this.latest = undefined
        await this.harness.makeFolder(dirname(this.path))
        // typed lines can hold secrets: only the user may read them
        await fs.writeFile(temp, lines.map((line) => `${line}\n`).join(''), { mode: 0o600 })
        await fs.rename(temp, this.path)
      }
    } catch (error) {
      this.latest = undefined
      await fs.rm(temp, { force: true }).catch(() => {})
      if (!this.warned) this.warn(`cannot save the input history to ${this.path}: ${(error as Error).message}`)
      this.warned = true
    } finally {
      this.writing = undefined
    }
  }
}
