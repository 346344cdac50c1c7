import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import type { PgInputOptions } from '../cli.ts'
import { PromptCliError } from '../errors.ts'
import { buildSessionView } from './build.ts'
import { loadSession } from './events.ts'
import type { SessionView } from './model.ts'
import { renderPage } from './page.ts'

export interface ViewOptions {
  input: string
  /** Where to write the page; default `<session name>.html` in the current folder. */
  out?: string
  /** Open the written page with the desktop's opener (`xdg-open`, `open`). */
  open?: boolean
  pg: PgInputOptions
}

export interface ViewResult {
  file: string
  bytes: number
  view: SessionView
  /** A line for stderr when `--open` could not start the opener. */
  warning?: string
}

/** Reads a session, writes its page, and says where and what it holds. */
export async function writeSessionPage(options: ViewOptions): Promise<ViewResult> {
  const view = buildSessionView(await loadSession(options.input, options.pg))
  const page = renderPage(view)
  const file = resolve(options.out ?? defaultName(options.input))
  try {
    await writeFile(file, page)
  } catch (error) {
    throw new PromptCliError('INPUT', `${file}: cannot write the page: ${(error as Error).message}`, { cause: error })
  }
  const result: ViewResult = { file, bytes: Buffer.byteLength(page), view }
  if (options.open) result.warning = await openFile(file)
  return result
}

/** The one-paragraph report the command prints. */
export function describeView(result: ViewResult): string {
  const { summary } = result.view
  const share = summary.cachedShare === null ? 'no usage reported' : `${(summary.cachedShare * 100).toFixed(1)}% cached`
  return [
    `wrote ${result.file} (${result.bytes.toLocaleString('en-US')} bytes)`,
    `session ${result.view.source}: ${summary.requests} request(s) in ${summary.turns} turn(s), ${share}, ${summary.uncached.total} token(s) billed without cache`,
    `${result.view.breaks.length} break(s) (${summary.detectorBreaks} by the detector), ${summary.headerChanges} header change(s), ${summary.compactions} compaction(s), ${summary.failedTurns} failed turn(s)`,
    '',
  ].join('\n')
}

function defaultName(input: string): string {
  const name = basename(input.replace(/^pg:/, '').replace(/\.jsonl$/, '')) || 'session'
  return `${name}.html`
}

function openFile(file: string): Promise<string | undefined> {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open'
  return new Promise((done) => {
    const child = spawn(opener, [file], { stdio: 'ignore', detached: true })
    child.once('error', (error) => done(`dsh-prompt: the page is written, but ${opener} could not open it: ${error.message}\n`))
    child.once('spawn', () => {
      child.unref()
      done(undefined)
    })
  })
}
