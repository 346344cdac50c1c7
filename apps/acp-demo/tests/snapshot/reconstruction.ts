import { fileURLToPath, pathToFileURL } from 'node:url'
import type { AppEntry } from './scenario.ts'
import { rebuildLastRequest } from 'dsh-agent-loop'
import type { SessionEvent } from 'dsh-session'
import type { LogEvent } from './normalize.ts'
import { REQUESTS_FILE, type RunResult } from './scenario.ts'

/** The app-file entry that records every dispatched request of a run into `REQUESTS_FILE`. */
export const REQUEST_TAP: AppEntry = {
  id: 'snapshot-request-tap',
  name: pathToFileURL(fileURLToPath(new URL('./request-tap.mjs', import.meta.url))).href,
  config: { file: `./${REQUESTS_FILE}` },
  disabled: false,
}

/** The log up to the end of its `step`-th step (1-based, counted over the whole session): what the loop had logged when that step's request went out, and that step's answer. */
function throughStep(events: readonly LogEvent[], step: number): LogEvent[] {
  let seen = 0
  const start = events.findIndex((event) => event.type === 'step/start' && ++seen === step)
  if (start < 0) return []
  const end = events.findIndex((event, index) => index > start && (event.type === 'step/end' || event.type === 'turn/end'))
  return events.slice(0, end < 0 ? events.length : end)
}

const bytes = (value: unknown) => JSON.stringify(value) ?? 'absent'

/**
 * For every model request of a run (one per step), compares the request rebuilt from the session log alone
 * (`rebuildLastRequest` over the log through that step) with what was dispatched, field by field, byte for
 * byte; any field of the dispatched request the log cannot rebuild is a difference too. Returns one line per
 * difference, naming the request and the field.
 */
export function reconstructionProblems(run: Pick<RunResult, 'events' | 'requests'>): string[] {
  const steps = run.events.filter((event) => event.type === 'step/start').length
  const problems: string[] = []
  if (run.requests.length !== steps) problems.push(`${run.requests.length} request(s) were dispatched for ${steps} step(s) in the log`)
  run.requests.forEach((sent, index) => {
    const rebuilt = rebuildLastRequest(throughStep(run.events, index + 1) as unknown as SessionEvent[]) as Record<string, unknown> | undefined
    if (!rebuilt) return void problems.push(`request ${index + 1}: the log holds no request header for it`)
    // through JSON, as the request reached the tap: functions (toolHistory.resolve) have no bytes
    const fromLog = JSON.parse(JSON.stringify(rebuilt)) as Record<string, unknown>
    for (const field of new Set([...Object.keys(sent), ...Object.keys(fromLog)])) {
      if (bytes(sent[field]) !== bytes(fromLog[field])) {
        problems.push(`request ${index + 1}: ${field} rebuilt from the log is ${bytes(fromLog[field]).slice(0, 200)}, dispatched ${bytes(sent[field]).slice(0, 200)}`)
      }
    }
  })
  return problems
}
