import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import type { AppEntry } from './scenario.ts'
import { lineDiff, type FileDifference } from './diff.ts'
import { Normalizer, asFile, parseJsonl, type LogEvent } from './normalize.ts'
import { REQUEST_TAP } from './reconstruction.ts'
import { APP_PLUGIN, REPO_ROOT, runScenario, type RunResult, type Scenario } from './scenario.ts'

/** One response of a `dsh-llm-scripted` script file. */
export interface ScriptResponse {
  text: string
  toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[]
  usage?: Record<string, number>
  error?: string
  delayMs?: number
}

/** The replay model of a recorded session: the model ids it called and one response per call. */
export interface ReplayScript {
  models: string[]
  responses: ScriptResponse[]
}

/**
 * Rebuilds the model's side of a recorded session: every `step/start` is one model call, answered by the
 * step's `assistant/message` (text, tool calls, usage). A step that has none was cut off: by a cancel
 * (it then needs a delay from `input.json`, so the cancel arrives first) or by a model error.
 */
export function replayScript(events: readonly LogEvent[], delays: Record<string, number> = {}, where = 'session.jsonl'): ReplayScript {
  const models = new Set<string>()
  const responses: ScriptResponse[] = []
  let open: number | undefined
  for (const { type, data } of events) {
    if (type === 'request/header') models.add(data.header.model)
    if (type === 'step/start') {
      responses.push({ text: '' })
      open = responses.length
    }
    if (type === 'assistant/message' && open !== undefined) {
      responses[open - 1] = {
        text: data.text,
        ...data.toolCalls.length && { toolCalls: data.toolCalls.map(({ id, name, arguments: args }: any) => ({ id, name, arguments: args })) },
        ...data.usage && { usage: data.usage },
      }
      open = undefined
    }
    if (type === 'turn/end' && open !== undefined) {
      if (data.reason === 'error') responses[open - 1] = { text: '', error: data.error?.message ?? 'model call failed' }
      else if (delays[open] === undefined) {
        throw new Error(`${where}: model call ${open} has no assistant/message (cut off by a cancel); give input.json `
          + `"modelDelayMs": { "${open}": <ms> } so the replayed call is still running when the cancel arrives`)
      }
      open = undefined
    }
  }
  for (const [call, ms] of Object.entries(delays)) {
    const response = responses[Number(call) - 1]
    if (!response) throw new Error(`${where}: input.json modelDelayMs names model call ${call}, but the session makes ${responses.length} call(s)`)
    response.delayMs = ms
  }
  return { models: [...models], responses }
}

const isModelEntry = (entry: AppEntry) => entry.name.startsWith('dsh-llm-')

function withApp(entries: readonly AppEntry[], patch: Record<string, unknown>): AppEntry[] {
  return entries.map((entry) => entry.name === APP_PLUGIN ? { ...entry, config: { ...entry.config, ...patch } } : entry)
}

/**
 * The app file of a replay: the scenario's entries without their model adapters, the app's own
 * `scripted-echo` switched off, and one `dsh-llm-scripted` entry serving the recorded model ids from `script`.
 */
export function replayEntries(entries: readonly AppEntry[], models: readonly string[], script: string): AppEntry[] {
  const app = entries.find((entry) => entry.name === APP_PLUGIN)!
  const served = models.length ? [...models] : [String(app.config.model ?? 'scripted-echo')]
  return [
    ...withApp(entries.filter((entry) => !isModelEntry(entry)), { scripted: false, model: served[0] }),
    { id: 'snapshot-replay', name: 'dsh-llm-scripted', config: { models: served, script }, disabled: false },
  ]
}

/** Where `record` gets a real model: the environment, names only (the key stays in its variable). */
export interface RecordTarget {
  model: string
  baseURL: string
  apiKeyEnv: string
}

/** Reads `DSH_RECORD_MODEL`, `DSH_RECORD_BASE_URL`, `DSH_RECORD_API_KEY_ENV`; undefined means offline. */
export function recordTarget(env: NodeJS.ProcessEnv): RecordTarget | undefined {
  if (!env.DSH_RECORD_MODEL) return undefined
  const apiKeyEnv = env.DSH_RECORD_API_KEY_ENV ?? 'OPENAI_API_KEY'
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) throw new Error('DSH_RECORD_API_KEY_ENV must be the NAME of a variable, not a key')
  return { model: env.DSH_RECORD_MODEL, baseURL: env.DSH_RECORD_BASE_URL ?? 'https://api.openai.com/v1', apiKeyEnv }
}

/** The app file of a recording: the scenario as written, or with its models swapped for `target`'s. */
export function recordEntries(entries: readonly AppEntry[], target?: RecordTarget): AppEntry[] {
  if (!target) return [...entries]
  const { model, baseURL, apiKeyEnv } = target
  return [
    ...withApp(entries.filter((entry) => !isModelEntry(entry)), { model }),
    { id: 'snapshot-record', name: 'dsh-llm-openai', config: { baseURL, apiKeyEnv, models: [model] }, disabled: false },
  ]
}

/** The fixture files a run stands for, by file name, normalized. */
export function fixtureFiles(scenario: Scenario, run: RunResult, secrets: readonly string[] = []): Record<string, string> {
  const normalizer = new Normalizer({ sessionIds: run.sessionIds, cwd: run.cwd, repoRoot: REPO_ROOT, secrets })
  const files: Record<string, string> = {
    'session.jsonl': asFile(normalizer.session(run.events, scenario.pinned)),
    'stdout.expected.jsonl': asFile(normalizer.stdout(run.messages)),
  }
  if (scenario.pinned) {
    const header = run.events.findLast((event) => event.type === 'request/header')
    if (!header) throw new Error(`${scenario.name}: the pinned scenario logged no request/header`)
    const { system, tools } = normalizer.scrub(header.data.header) as { system: string; tools: unknown }
    files['system-prompt.expected.md'] = `${system}\n`
    files['tool-schemas.expected.json'] = `${JSON.stringify(tools, null, 2)}\n`
  }
  return files
}

// pinned header files first: that is where a prompt change is meant to show
const FILE_ORDER = ['system-prompt.expected.md', 'tool-schemas.expected.json', 'session.jsonl', 'stdout.expected.jsonl']

/** Every expected file that differs from `files` (a missing file counts as empty), with its diff. */
export async function compareFixture(scenario: Scenario, files: Record<string, string>): Promise<FileDifference[]> {
  const differences: FileDifference[] = []
  for (const name of FILE_ORDER.filter((name) => name in files)) {
    const path = join(scenario.dir, name)
    const expected = await readFile(path, 'utf8').catch(() => '')
    const diff = lineDiff(expected, files[name])
    if (diff) differences.push({ file: relative(process.cwd(), path) || path, diff })
  }
  return differences
}

export async function writeFixture(scenario: Scenario, files: Record<string, string>): Promise<void> {
  for (const [name, text] of Object.entries(files)) await writeFile(join(scenario.dir, name), text)
}

/**
 * Replays a scenario offline from its recorded `session.jsonl` through the real executable, with every
 * dispatched request tapped (`run.requests`, for the reconstruction check).
 */
export async function replayRun(scenario: Scenario): Promise<{ files: Record<string, string>; run: RunResult }> {
  const where = join(scenario.dir, 'session.jsonl')
  const recorded = parseJsonl(await readFile(where, 'utf8'), where)
  const { models, responses } = replayScript(recorded, scenario.input.modelDelayMs, where)
  const folder = await mkdtemp(join(tmpdir(), 'dsh-replay-'))
  const script = join(folder, 'script.json')
  await writeFile(script, JSON.stringify({ responses }, null, 2))
  try {
    const run = await runScenario([...replayEntries(scenario.entries, models, script), REQUEST_TAP], scenario.input)
    return { files: fixtureFiles(scenario, run), run }
  } finally {
    await rm(folder, { recursive: true, force: true })
  }
}

/** The fixture files a replay of the scenario produces. */
export async function replay(scenario: Scenario): Promise<Record<string, string>> {
  return (await replayRun(scenario)).files
}

/** Records a scenario against `target` (or, without one, against the models its own app file names). */
export async function record(scenario: Scenario, target: RecordTarget | undefined, env: NodeJS.ProcessEnv): Promise<Record<string, string>> {
  const secret = target ? env[target.apiKeyEnv] : undefined
  const run = await runScenario(recordEntries(scenario.entries, target), scenario.input,
    target && secret !== undefined ? { [target.apiKeyEnv]: secret } : {})
  return fixtureFiles(scenario, run, secret ? [secret] : [])
}

export type SnapshotMode = 'replay' | 'refresh' | 'record'
const MODES: SnapshotMode[] = ['replay', 'refresh', 'record']

/** `DSH_SNAPSHOT`: `replay` when unset. */
export function snapshotMode(value: string | undefined): SnapshotMode {
  if (value === undefined || value === '') return 'replay'
  if ((MODES as string[]).includes(value)) return value as SnapshotMode
  throw new Error(`DSH_SNAPSHOT="${value}" is not a mode; valid: ${MODES.join(', ')}`)
}
