import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseAppFile } from 'dsh-app-boot'
import { drive } from '../harness.ts'
import { parseJsonl, type LogEvent } from './normalize.ts'

/** One entry of an app file, as `parseAppFile` reads it. */
export type AppEntry = ReturnType<typeof parseAppFile>[number]

/** The folder of all ACP scenarios, and the repository root (for normalizing paths). */
export const SCENARIOS_ROOT = fileURLToPath(new URL('../../../../fixtures/acp/', import.meta.url))
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url)).replace(/\/$/, '')
/** The one scenario whose fixture pins the full request header. */
export const PINNED_SCENARIO = 'text-turn'
/** The app plugin's entry name; the runner points its session logs into the run's temp folder. */
export const APP_PLUGIN = 'dsh-acp-demo'

/** One step of `input.json`: an ACP request or notification, or a pause, in order. */
export type Operation =
  /** Sends a request and waits for its answer (an error answer is part of the transcript, not a failure). */
  | { request: string; params?: unknown; background?: boolean }
  /** Sends a notification, e.g. `session/cancel`. */
  | { notify: string; params?: unknown }
  /** Waits until the session log holds `count` (default 1) events of type `event`. */
  | { until: { event: string; count?: number; session?: string } }
  /** Waits this many milliseconds, e.g. for a tool registered after a delay. */
  | { sleep: number }
  /** Waits for every background request. */
  | { join: true }

/** `input.json`: what the client sends, plus replay timing the log cannot hold. */
export interface ScenarioInput {
  description?: string
  /** Model call number (1-based) → milliseconds the replayed model waits before answering. */
  modelDelayMs?: Record<string, number>
  operations: Operation[]
}

export interface Scenario {
  name: string
  dir: string
  /** The entries of the scenario's `cordis.yml`, relative paths resolved against the scenario folder. */
  entries: AppEntry[]
  input: ScenarioInput
  /** True for the one scenario whose session keeps the real header and whose header files are pinned. */
  pinned: boolean
}

const OPERATION_KEYS = ['request', 'notify', 'until', 'sleep', 'join']
const INPUT_KEYS = ['description', 'modelDelayMs', 'operations']

/** Checks `input.json`; every problem names the file, the operation index and what is valid. */
export function parseInput(data: unknown, file: string): ScenarioInput {
  const fail = (where: string, problem: string) => new Error(`${file}: ${where} ${problem}`)
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw fail('the top level', 'must be an object { operations: [...] }')
  const input = data as Record<string, unknown>
  for (const key of Object.keys(input)) if (!INPUT_KEYS.includes(key)) throw fail(key, `is not a known key; valid: ${INPUT_KEYS.join(', ')}`)
  if (!Array.isArray(input.operations) || !input.operations.length) throw fail('operations', 'must be a non-empty list')
  for (const [call, ms] of Object.entries((input.modelDelayMs ?? {}) as Record<string, unknown>)) {
    if (!/^[1-9]\d*$/.test(call)) throw fail(`modelDelayMs["${call}"]`, 'must be keyed by a model call number (1, 2, …)')
    if (!(typeof ms === 'number' && Number.isInteger(ms) && ms >= 0)) throw fail(`modelDelayMs["${call}"]`, `must be an integer ≥ 0, got ${JSON.stringify(ms)}`)
  }
  input.operations.forEach((op: unknown, index: number) => {
    const at = `operations[${index}]`
    const keys = op !== null && typeof op === 'object' ? Object.keys(op) : []
    const kind = keys.filter((key) => OPERATION_KEYS.includes(key))
    if (kind.length !== 1) throw fail(at, `must have exactly one of ${OPERATION_KEYS.join(', ')}; got ${JSON.stringify(op)}`)
    const value = (op as Record<string, unknown>)[kind[0]]
    const allowed = kind[0] === 'request' ? ['request', 'params', 'background'] : kind[0] === 'notify' ? ['notify', 'params'] : kind
    const extra = keys.find((key) => !allowed.includes(key))
    if (extra) throw fail(`${at}.${extra}`, `is not valid beside "${kind[0]}"; valid: ${allowed.join(', ')}`)
    if ((kind[0] === 'request' || kind[0] === 'notify') && (typeof value !== 'string' || !value)) throw fail(`${at}.${kind[0]}`, 'must be an ACP method name')
    if (kind[0] === 'sleep' && !(typeof value === 'number' && value >= 0)) throw fail(`${at}.sleep`, 'must be a number of milliseconds ≥ 0')
    if (kind[0] === 'join' && value !== true) throw fail(`${at}.join`, 'must be true')
    if (kind[0] === 'until' && typeof (value as { event?: unknown })?.event !== 'string') throw fail(`${at}.until.event`, 'must be a session event type, e.g. "step/start"')
  })
  return input as unknown as ScenarioInput
}

/** Reads a scenario folder: `cordis.yml` and `input.json` (the recorded files are read by the comparison). */
export async function loadScenario(dir: string): Promise<Scenario> {
  const name = basename(dir)
  const configFile = join(dir, 'cordis.yml')
  const inputFile = join(dir, 'input.json')
  const entries = parseAppFile(await readFile(configFile, 'utf8'), configFile)
  if (!entries.some((entry) => entry.name === APP_PLUGIN)) throw new Error(`${configFile}: no entry runs ${APP_PLUGIN}`)
  let data: unknown
  try {
    data = JSON.parse(await readFile(inputFile, 'utf8'))
  } catch (error) {
    throw new Error(`${inputFile}: ${(error as Error).message}`)
  }
  return { name, dir, entries, input: parseInput(data, inputFile), pinned: name === PINNED_SCENARIO }
}

/** The scenario folders under `root`, in code-unit order. */
export async function scenarioDirs(root = SCENARIOS_ROOT): Promise<string[]> {
  const items = await readdir(root, { withFileTypes: true })
  return items.filter((item) => item.isDirectory()).map((item) => join(root, item.name)).sort()
}

/** What one run of the real executable produced, before normalization. */
export interface RunResult {
  /** Every JSON-RPC message the client received on the app's stdout, in order. */
  messages: any[]
  sessionIds: string[]
  /** The log of the scenario's session. */
  events: LogEvent[]
  /** The app's working directory (its temp folder, removed once the run is over). */
  cwd: string
  /** What the model was sent, request by request, when the app file taps it (`REQUESTS_FILE`); else empty. */
  requests: Record<string, unknown>[]
}

/** Where, in the app's working directory, a request tap writes the dispatched requests. */
export const REQUESTS_FILE = 'requests.jsonl'

// <session-N>, <cwd> and <repo> in input.json stand for values only the run knows
function substitute(value: unknown, sessionIds: string[], cwd: string): unknown {
  if (typeof value === 'string') {
    const session = /^<session-(\d+)>$/.exec(value)
    if (session) {
      const id = sessionIds[Number(session[1]) - 1]
      if (!id) throw new Error(`${value} is used before session/new created it`)
      return id
    }
    return value.replaceAll('<cwd>', cwd).replaceAll('<repo>', REPO_ROOT)
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, sessionIds, cwd))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, sessionIds, cwd)]))
  }
  return value
}

async function readLog(cwd: string, sessionId: string): Promise<LogEvent[]> {
  const file = join(cwd, 'sessions', `${sessionId}.jsonl`)
  return parseJsonl(await readFile(file, 'utf8').catch(() => ''), file)
}

async function until(cwd: string, sessionId: string, type: string, count: number, what: string): Promise<void> {
  const deadline = Date.now() + 15_000
  // the log may be caught mid-write: a torn line just means "not yet"
  const seen = () => readLog(cwd, sessionId).then((events) => events.filter((event) => event.type === type).length, () => 0)
  while (await seen() < count) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * Boots the real `dsh-acp-demo` executable on `entries` (written as the app file of a fresh temp folder,
 * which is also its working directory and holds its session logs), drives it with the SDK client through
 * `input.operations`, closes stdin, and collects what the client received and the session log.
 */
export async function runScenario(entries: readonly AppEntry[], input: ScenarioInput, env: Record<string, string> = {}): Promise<RunResult> {
  const cwd = await mkdtemp(join(tmpdir(), 'dsh-snapshot-'))
  const app = entries.map((entry) => entry.name !== APP_PLUGIN ? entry
    : { ...entry, config: { ...entry.config, persistenceRoot: './sessions', persist: true } })
  // JSON is YAML: the generated app file needs no YAML writer
  await writeFile(join(cwd, 'cordis.yml'), `${JSON.stringify(app, null, 2)}\n`)
  try {
    return await drivenRun(cwd, input, env)
  } finally {
    await rm(cwd, { recursive: true, force: true })
  }
}

async function drivenRun(cwd: string, input: ScenarioInput, env: Record<string, string>): Promise<RunResult> {
  const driven = drive(['cordis.yml'], { cwd, env: { DSH_LOG_LEVEL: 'warn', ...env } })
  const sessionIds: string[] = []
  const background: Promise<unknown>[] = []
  const failed = (problem: string) => new Error(`${problem}\n--- app stderr ---\n${driven.stderr()}`)
  try {
    for (const [index, op] of input.operations.entries()) {
      if ('request' in op) {
        const params = substitute(op.params ?? {}, sessionIds, cwd)
        const answer = driven.connection.agent.request<any>(op.request, params).then((result) => {
          if (op.request === 'session/new') sessionIds.push(result.sessionId)
        }, () => {})
        if (op.background) background.push(answer)
        else await answer
      } else if ('notify' in op) {
        await driven.connection.agent.notify(op.notify, substitute(op.params ?? {}, sessionIds, cwd))
      } else if ('until' in op) {
        const session = substitute(op.until.session ?? '<session-1>', sessionIds, cwd) as string
        await until(cwd, session, op.until.event, op.until.count ?? 1, `operations[${index}]: ${JSON.stringify(op)}`)
      } else if ('sleep' in op) {
        await new Promise((resolve) => setTimeout(resolve, op.sleep))
      } else {
        await Promise.all(background.splice(0))
      }
    }
    await Promise.all(background)
  } catch (error) {
    const code = await driven.stop()
    throw failed(`${(error as Error).message} (dsh-acp-demo exited with code ${code})`)
  }
  const code = await driven.stop()
  if (code !== 0) throw failed(`dsh-acp-demo exited with code ${code}`)
  if (sessionIds.length !== 1) throw failed(`a scenario records exactly one session; this one created ${sessionIds.length}`)
  const tapped = join(cwd, REQUESTS_FILE)
  const requests = parseJsonl(await readFile(tapped, 'utf8').catch(() => ''), tapped)
  return { messages: parseJsonl(driven.stdout(), 'stdout'), sessionIds, events: await readLog(cwd, sessionIds[0]), cwd, requests }
}
