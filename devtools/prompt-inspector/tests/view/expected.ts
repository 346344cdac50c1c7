import { readFile } from 'node:fs/promises'

/** The events of a JSONL log, parsed line by line (the test's own reading, not the viewer's). */
export async function readEvents(file: string): Promise<any[]> {
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line))
}

/**
 * The summary figures of a session, computed straight from its events: what the page's summary must
 * show. Usage counts every response and every compaction call.
 */
export function figuresFromLog(events: readonly any[]) {
  const usages = events.filter((event) => (event.type === 'assistant/message' || event.type === 'context/compaction') && event.data.usage).map((event) => event.data.usage)
  const input = usages.reduce((sum, usage) => sum + usage.inputTokens, 0)
  const cacheRead = usages.reduce((sum, usage) => sum + usage.cacheReadTokens, 0)
  const tools = events.filter((event) => event.type === 'developer/message')
  return {
    models: [...new Set(events.filter((event) => event.type === 'request/header').map((event) => event.data.header.model))],
    requests: events.filter((event) => event.type === 'step/start').length,
    turns: events.filter((event) => event.type === 'turn/start').length,
    input,
    cachedShare: input ? cacheRead / input : null,
    uncached: usages.reduce((sum, usage) => sum + Math.max(0, usage.inputTokens - usage.cacheReadTokens), 0),
    headerChanges: headerChanges(events),
    toolsAdded: tools.reduce((sum, event) => sum + event.data.added.length, 0),
    toolsRemoved: tools.reduce((sum, event) => sum + event.data.removed.length, 0),
    compactions: events.filter((event) => event.type === 'context/compaction').length,
    failedTurns: events.filter((event) => event.type === 'turn/end' && event.data.reason === 'error').length,
    detectorBreaks: events.filter((event) => event.type === 'prompt-cache/break').length,
  }
}

/** Requests whose header in force is other bytes than the request before's, whatever reason the log gives. */
function headerChanges(events: readonly any[]): number {
  let inForce: string | undefined
  let previous: string | undefined
  let changes = 0
  for (const event of events) {
    if (event.type === 'request/header') inForce = JSON.stringify(event.data.header)
    if (event.type !== 'step/start') continue
    // the header of a step is logged right after its step/start
    const next = events[events.indexOf(event) + 1]
    const header = next?.type === 'request/header' ? JSON.stringify(next.data.header) : inForce
    if (previous !== undefined && header !== previous) changes++
    previous = header
  }
  return changes
}
