import { join } from 'node:path'
import { defaultSessionRoot, isSessionId } from 'dsh-session'
import { readSessionEvents } from 'dsh-session-postgres'
import type { PgInputOptions } from '../cli.ts'
import { PromptInspectorError } from '../errors.ts'
import { eachJsonLine, readLogText } from '../log-text.ts'

/** One logged event as read, not yet trusted: `{ seq, time, type, data }`. */
export interface RawEvent {
  seq: number
  time: string
  type: string
  data: Record<string, any>
}

/** A session's events and a name for where they came from. */
export interface LoadedSession {
  source: string
  events: RawEvent[]
}

const PG = /^pg:(.*)$/

/**
 * Reads a whole session: a JSONL file (a path, or any argument ending in `.jsonl`), `pg:ID` from PostgreSQL
 * (where `pg` says), or a bare session id looked up in the default session folder of `cwd`.
 * Read-only; a torn last line (a crash mid-write) is skipped.
 */
export async function loadSession(input: string, pg: PgInputOptions, cwd = process.cwd()): Promise<LoadedSession> {
  const stored = PG.exec(input)
  if (stored) return { source: input, events: await readPg(stored[1]!, pg) }
  if (input.endsWith('.jsonl') || input.includes('/')) return { source: input, events: await readJsonl(input) }
  if (!isSessionId(input)) {
    throw new PromptInspectorError('INPUT', `${JSON.stringify(input)} is neither a session file (.jsonl), pg:SESSION-ID nor a session id (letters, digits, "_" and "-")`)
  }
  const file = join(defaultSessionRoot(cwd), `${input}.jsonl`)
  return { source: input, events: await readJsonl(file, `session ${JSON.stringify(input)} (looked for ${file})`) }
}

async function readJsonl(path: string, what = path): Promise<RawEvent[]> {
  const events: RawEvent[] = []
  eachJsonLine(await readLogText(path, what), path, (value, line) => events.push(checkEvent(value, `${path}:${line}`)))
  if (!events.length) throw new PromptInspectorError('INPUT', `${path}: no events in this session log`)
  return events
}

async function readPg(id: string, pg: PgInputOptions): Promise<RawEvent[]> {
  if (!isSessionId(id)) throw new PromptInspectorError('INPUT', `pg:${id}: bad session id ${JSON.stringify(id)}; write pg:ID with ID letters, digits, "_" and "-"`)
  const events: RawEvent[] = []
  try {
    for await (const row of readSessionEvents({ urlEnv: pg.urlEnv, schema: pg.schema }, id)) events.push(checkEvent(row.body, `pg:${id}#${row.seq}`))
  } catch (error) {
    if (PromptInspectorError.is(error)) throw error
    throw new PromptInspectorError('INPUT', `pg:${id}: ${(error as Error).message}`, { cause: error })
  }
  if (!events.length) throw new PromptInspectorError('INPUT', `pg:${id}: no events in this session`)
  return events
}

function checkEvent(value: any, where: string): RawEvent {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new PromptInspectorError('INPUT', `${where}: an event must be a JSON object { seq, time, type, data }`)
  if (!Number.isSafeInteger(value.seq)) throw new PromptInspectorError('INPUT', `${where}: seq must be an integer, got ${JSON.stringify(value.seq)}`)
  if (typeof value.type !== 'string') throw new PromptInspectorError('INPUT', `${where}: type must be a string, got ${JSON.stringify(value.type)}`)
  if (!value.data || typeof value.data !== 'object' || Array.isArray(value.data)) throw new PromptInspectorError('INPUT', `${where}: data must be an object`)
  return { seq: value.seq, time: typeof value.time === 'string' ? value.time : '', type: value.type, data: value.data }
}
