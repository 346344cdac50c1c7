import { PromptInspectorError } from '../errors.ts'
import type { RawEvent } from './events.ts'
import { HeaderTable } from './headers.ts'
import type { ViewHeader, ViewMarker, ViewRequest, ViewUsage } from './model.ts'

/** A detector event (`prompt-cache/break`) and the request it was logged after. */
export interface LoggedBreak {
  request: number
  seq: number
  data: Record<string, any>
}

/** The session folded into requests, markers and the raw facts the causes are decided from. */
export interface Timeline {
  headers: ViewHeader[]
  requests: ViewRequest[]
  markers: ViewMarker[]
  detector: LoggedBreak[]
  /** Requests that follow a compaction (no request in between). */
  afterCompaction: Set<number>
  /** The usage of each compaction call (a model call of its own, not a row), null where none was logged. */
  compactionUsage: (ViewUsage | null)[]
  turns: Set<number>
  failedTurns: number
  prompts: Record<number, string>
}

const bytes = (text: unknown) => (typeof text === 'string' ? Buffer.byteLength(text) : 0)

/**
 * Folds a session's events, in log order, into one row per model request (a `step/start`): the header in
 * force (the last `request/header`, the rule `Session.requestHeader()` folds by), the response's usage,
 * the idle gap before it and an estimate of the history's size; plus the markers between rows.
 */
export function foldTimeline(events: readonly RawEvent[], where: string): Timeline {
  const table = new HeaderTable()
  const requests: ViewRequest[] = []
  const markers: ViewMarker[] = []
  const detector: LoggedBreak[] = []
  const afterCompaction = new Set<number>()
  const compactionUsage: (ViewUsage | null)[] = []
  const turns = new Set<number>()
  let failedTurns = 0
  const prompts: Record<number, string> = {}
  let inForce = -1
  let open: ViewRequest | undefined
  let lastUse: number | null = null
  // history estimate: bytes of the model-facing events so far, with their running sums by seq for compactions
  let history = 0
  let snapshot = 0
  const sums: [number, number][] = []
  /** Bytes of each user message by seq, for a refusal that takes one back out. */
  const asked = new Map<number, number>()
  const grow = (seq: number, size: number) => {
    history += size
    sums.push([seq, history])
  }
  for (const event of events) {
    const { data, seq } = event
    const time = parseTime(event.time)
    switch (event.type) {
      case 'turn/start':
        if (Number.isSafeInteger(data.turn)) turns.add(data.turn)
        break
      case 'step/start': {
        close(open)
        const index = requests.length
        open = {
          index, seq, time, turn: num(data.turn), step: num(data.step), header: inForce, headerReason: null,
          gapMs: lastUse !== null && time !== null ? Math.max(0, time - lastUse) : null, beyondTtl: null, usage: null,
          sizes: { tools: 0, system: 0, history: history + snapshot }, break: null, failed: true, cause: 'new_input', answer: '',
        }
        requests.push(open)
        break
      }
      case 'request/header': {
        inForce = table.add(seq, data, where)
        if (pending(open)) {
          open.header = inForce
          open.headerReason = data.reason === 'initial' || data.reason === 'resume' || data.reason === 'change' || data.reason === 'model' ? data.reason : null
          if (open.headerReason === 'resume') markers.push({ kind: 'resume', before: open.index, seq })
        }
        break
      }
      case 'assistant/message':
        if (open) {
          open.failed = false
          open.usage = usageOf(data.usage)
          open.answer = answerLine(data)
          if (time !== null) lastUse = time
        }
        grow(seq, bytes(data.text) + (Array.isArray(data.toolCalls) && data.toolCalls.length ? Buffer.byteLength(JSON.stringify(data.toolCalls)) : 0))
        break
      case 'user/message':
        if (typeof data.text === 'string' && Number.isSafeInteger(data.turn) && !(data.turn in prompts)) prompts[data.turn] = data.text
        asked.set(seq, bytes(data.text))
        grow(seq, bytes(data.text))
        break
      case 'user/refused':
        // a refused message is not history: no request after it carries it
        grow(seq, -(asked.get(data.messageSeq) ?? 0))
        break
      case 'tool/result':
        grow(seq, bytes(data.output))
        break
      case 'developer/message': {
        const added = names(data.added)
        const removed = names(data.removed)
        grow(seq, Buffer.byteLength(JSON.stringify({ added, removed })))
        // logged right after the change header of the open request: the marker goes before that row
        markers.push({ kind: 'tools', before: pending(open) ? open.index : requests.length, seq, added, removed })
        break
      }
      case 'context/snapshot':
        snapshot = bytes(data.text)
        if (pending(open)) open.sizes.history = history + snapshot
        break
      case 'context/compaction': {
        const through = Number.isSafeInteger(data.throughSeq) ? data.throughSeq : seq
        const kept = history - (sums.findLast(([at]) => at <= through)?.[1] ?? 0)
        history = bytes(data.summary) + kept
        sums.push([seq, history])
        // a compaction before a step runs after its step/start, so it shapes the open request
        const before = pending(open) ? open.index : requests.length
        if (pending(open)) open.sizes.history = history + snapshot
        afterCompaction.add(before)
        compactionUsage.push(usageOf(data.usage))
        markers.push({ kind: 'compaction', before, seq, reason: String(data.reason ?? ''), summaryChars: typeof data.summary === 'string' ? [...data.summary].length : 0 })
        break
      }
      case 'prompt-cache/break':
        if (requests.length) detector.push({ request: requests.length - 1, seq, data })
        break
      case 'turn/end':
        close(open)
        open = undefined
        if (data.reason === 'error') {
          failedTurns++
          markers.push({ kind: 'turn-failed', before: requests.length, seq, turn: num(data.turn), message: String(data.error?.message ?? '') })
        }
        break
    }
  }
  close(open)
  const headers = table.headers
  for (const request of requests) {
    if (request.header < 0) throw new PromptInspectorError('INPUT', `${where}: request of turn ${request.turn} step ${request.step} (seq ${request.seq}) has no request/header before it`)
    request.sizes.tools = headers[request.header]!.bytes.tools
    request.sizes.system = headers[request.header]!.bytes.system
  }
  return { headers, requests, markers, detector, afterCompaction, compactionUsage, turns, failedTurns, prompts }

  function close(request: ViewRequest | undefined) {
    if (request && request.failed && request.time !== null) lastUse = request.time
  }
}

/** A request whose step has started and whose response has not come yet. */
function pending(request: ViewRequest | undefined): request is ViewRequest {
  return request !== undefined && request.failed && request.usage === null
}

/** The first non-empty line of a response's text, else the names of the tools it called. */
function answerLine(data: Record<string, any>): string {
  const line = typeof data.text === 'string' ? data.text.split('\n').find((text: string) => text.trim() !== '') : undefined
  if (line !== undefined) return line.trim()
  const called = Array.isArray(data.toolCalls) ? data.toolCalls.map((call: any) => String(call?.name ?? '')).filter(Boolean) : []
  return called.length ? `→ ${called.join(', ')}` : ''
}

function parseTime(text: string): number | null {
  const ms = Date.parse(text)
  return Number.isFinite(ms) ? ms : null
}

function num(value: unknown): number {
  return Number.isSafeInteger(value) ? (value as number) : 0
}

function names(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((name): name is string => typeof name === 'string') : []
}

function usageOf(usage: any): ViewUsage | null {
  if (!usage || typeof usage !== 'object') return null
  const figure = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0)
  return { input: figure(usage.inputTokens), cacheRead: figure(usage.cacheReadTokens), cacheWrite: figure(usage.cacheWriteTokens), output: figure(usage.outputTokens) }
}
