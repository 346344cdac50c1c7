import { spawn } from 'node:child_process'
import { writeFile } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import type { PgInputOptions } from '../cli.ts'
import { PromptInspectorError } from '../errors.ts'
import { PROFILES, cachePolicy, type ProviderId } from 'dsh-llm'
import { TTL_PENDING, buildSessionView } from './build.ts'
import { loadSession, type RawEvent } from './events.ts'
import { UNCACHED_CAUSES, type SessionView, type ViewTtl } from './model.ts'
import { dollars, type ViewMoney } from './money.ts'
import { renderPage } from './page.ts'
import { keepaliveLine } from './keepalive.ts'
import { describeTree, loadTree, type ViewTree } from './tree.ts'

export interface ViewOptions {
  input: string
  /** Where to write the page; default `<session name>.html` in the current folder. */
  out?: string
  /** Open the written page with the desktop's opener (`xdg-open`, `open`). */
  open?: boolean
  pg: PgInputOptions
  /** The provider profile whose cache TTL the gaps are judged by; none leaves them unjudged. */
  provider?: ProviderId
  /** One of the profile's lifetimes (`cacheTtl` of a model entry); default the profile's default. */
  cacheTtl?: string
}

export interface ViewResult {
  file: string
  bytes: number
  view: SessionView
  /** The session's parent and children (forks, side questions), each child with its own cache use. */
  tree: ViewTree
  /** A line for stderr when `--open` could not start the opener. */
  warning?: string
}

/** Reads a session, writes its page, and says where and what it holds. */
export async function writeSessionPage(options: ViewOptions): Promise<ViewResult> {
  const session = await loadSession(options.input, options.pg)
  const view = buildSessionView(session, options.provider ? ttlOf(options.provider, options.cacheTtl, session.events) : TTL_PENDING)
  const tree = await loadTree(options.input, session.events, options.pg)
  const page = renderPage(view, tree)
  const file = resolve(options.out ?? defaultName(options.input))
  try {
    await writeFile(file, page)
  } catch (error) {
    throw new PromptInspectorError('INPUT', `${file}: cannot write the page: ${(error as Error).message}`, { cause: error })
  }
  const result: ViewResult = { file, bytes: Buffer.byteLength(page), view, tree }
  if (options.open) result.warning = await openFile(file)
  return result
}

/** The one-paragraph report the command prints. */
export function describeView(result: ViewResult): string {
  const { summary } = result.view
  const share = summary.cachedShare === null ? 'no usage reported' : `${(summary.cachedShare * 100).toFixed(1)}% cached${summary.emulatedUsage ? ' (emulated)' : ''}`
  return [
    `wrote ${result.file} (${result.bytes.toLocaleString('en-US')} bytes)`,
    `session ${result.view.source}: ${summary.requests} request(s) in ${summary.turns} turn(s), ${share}, ${summary.uncached.total} token(s) billed without cache`,
    `${result.view.breaks.length} break(s) (${summary.detectorBreaks} by the detector), ${summary.headerChanges} header change(s), ${summary.compactions} compaction(s), ${summary.failedTurns} failed turn(s)`,
    ...result.view.keepalive ? [keepaliveLine(result.view.keepalive)] : [],
    ...summary.money ? [moneyLine(summary.money)] : [],
    ...describeTree(result.tree),
    '',
  ].join('\n')
}

/** The session's money: billed against no cache, then per cause (with what its breaks cost over a full hit). */
function moneyLine(money: ViewMoney): string {
  const causes = UNCACHED_CAUSES.flatMap((cause) => {
    const sum = money.byCause[cause]
    if (!sum) return []
    return [`${cause} ${dollars(sum.billed)}${sum.breakCost > 0 ? ` (break ${dollars(sum.breakCost)})` : ''}`]
  })
  const emulated = money.emulated ? ' (emulated)' : ''
  return `${dollars(money.billed)} billed${emulated} against ${dollars(money.noCache)} with no cache (saved ${dollars(money.noCache - money.billed)}), `
    + `${dollars(money.breakCost)} lost to breaks; by cause: ${causes.join(', ')}`
}

/** The lifetime of the profile's cache entries the gaps are judged by. */
function ttlOf(provider: ProviderId, cacheTtl: string | undefined, events: readonly RawEvent[]): ViewTtl {
  const model = events.find((event) => event.type === 'request/header')?.data.header?.model
  let ttl
  try {
    ttl = cachePolicy(PROFILES[provider], typeof model === 'string' ? model : '', cacheTtl).ttl
  } catch (error) {
    throw new PromptInspectorError('USAGE', `--cache-ttl: ${(error as Error).message}`)
  }
  if (ttl.seconds === undefined) return { status: 'unbounded', note: `the ${provider} profile documents no bound on its cache lifetime (${ttl.name}), so no gap is marked` }
  return { status: 'known', ttlMs: ttl.seconds * 1000, profile: provider, name: ttl.name }
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
