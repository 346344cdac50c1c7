import type { RequestHeader } from 'dsh-session'
import { PromptInspectorError } from './errors.ts'
import { eachJsonLine, readLogText } from './log-text.ts'

/** A `request/header` event read from a session log. */
export interface LoggedHeader {
  seq: number
  /** 1-based line of the event in the file; null for a session read from PostgreSQL. */
  line: number | null
  turn: number | null
  step: number | null
  reason: string | null
  header: RequestHeader
}

/**
 * Reads a session log (JSONL, one event per line) and returns the `request/header` with `seq`, or the
 * last one when `seq` is omitted. Read-only: a torn last line (a crash mid-write) is skipped, not repaired.
 */
export async function readSessionHeader(path: string, seq?: number): Promise<LoggedHeader> {
  return pickHeader(parseHeaders(await readLogText(path), path), path, seq)
}

/** The header with `seq` among `headers` (the last one when `seq` is omitted); `where` names the log in errors. */
export function pickHeader(headers: readonly LoggedHeader[], where: string, seq?: number): LoggedHeader {
  if (seq === undefined) {
    const last = headers[headers.length - 1]
    if (!last) throw new PromptInspectorError('INPUT', `${where}: no request/header event in this session log`)
    return last
  }
  const found = headers.find((header) => header.seq === seq)
  if (!found) {
    const seqs = headers.map((header) => header.seq).join(', ') || '(none)'
    throw new PromptInspectorError('INPUT', `${where}: no request/header event with seq ${seq}; request/header seqs: ${seqs}`)
  }
  return found
}

/**
 * The header of one parsed event, or undefined when it is another type; `where` prefixes errors
 * (`file:LINE` or `pg:ID`), `line` is recorded as given.
 */
export function headerOfEvent(event: any, where: string, line: number | null): LoggedHeader | undefined {
  if (!event || typeof event !== 'object' || event.type !== 'request/header') return undefined
  if (!Number.isSafeInteger(event.seq)) throw new PromptInspectorError('INPUT', `${where}: request/header event has no integer seq, got ${JSON.stringify(event.seq)}`)
  const header = event.data?.header
  const problem = headerProblem(header)
  if (problem) throw new PromptInspectorError('INPUT', `${where}: request/header seq ${event.seq}: ${problem}`)
  const { turn, step, reason } = event.data
  return {
    seq: event.seq,
    line,
    turn: Number.isSafeInteger(turn) ? turn : null,
    step: Number.isSafeInteger(step) ? step : null,
    reason: typeof reason === 'string' ? reason : null,
    header: { model: header.model, system: header.system, tools: header.tools },
  }
}

function parseHeaders(text: string, path: string): LoggedHeader[] {
  const headers: LoggedHeader[] = []
  eachJsonLine(text, path, (value, line) => {
    const header = headerOfEvent(value, `${path}:${line}`, line)
    if (header) headers.push(header)
  })
  return headers
}

function headerProblem(header: any): string | undefined {
  if (!header || typeof header !== 'object' || Array.isArray(header)) return 'data.header must be an object { model, system, tools }'
  if (typeof header.model !== 'string') return `data.header.model must be a string, got ${JSON.stringify(header.model)}`
  if (typeof header.system !== 'string') return `data.header.system must be a string, got ${JSON.stringify(header.system)}`
  if (!Array.isArray(header.tools)) return `data.header.tools must be a list of tools, got ${JSON.stringify(header.tools)}`
  const bad = header.tools.findIndex((tool: any) => !tool || typeof tool !== 'object' || typeof tool.name !== 'string')
  if (bad >= 0) return `data.header.tools[${bad}] must be a tool { name, description, parameters }`
  return undefined
}
