import { BREAK_REASONS } from 'dsh-cache-break-detector'
import { UNCACHED_CAUSES, type UncachedCause, type ViewBreak, type ViewSummary, type ViewTtl, type ViewUsage } from './model.ts'
import type { Timeline } from './timeline.ts'

const DETECTOR_REASONS = new Set<string>(BREAK_REASONS)

/**
 * Decides each request's uncached cause, first match wins: the first request; a resume; the first request
 * after a compaction; the detector's reason (a TTL reason with a gap past the profile's TTL is `ttl_gap`);
 * any other gap past the TTL; a changed header the detector did not flag; else ordinary new input.
 */
export function assignCauses(timeline: Timeline, breaks: readonly ViewBreak[], ttl: ViewTtl): void {
  const { requests } = timeline
  requests.forEach((request, index) => {
    request.beyondTtl = ttl.status === 'known' && request.gapMs !== null ? request.gapMs > ttl.ttlMs : null
    const reason = request.break !== null ? breaks[request.break]!.detector?.reason : undefined
    let cause: UncachedCause
    if (index === 0) cause = 'first_request'
    else if (request.headerReason === 'resume') cause = 'resume'
    else if (timeline.afterCompaction.has(index)) cause = 'compaction'
    else if (reason && DETECTOR_REASONS.has(reason)) cause = reason === 'likely_provider_ttl_or_eviction' && request.beyondTtl ? 'ttl_gap' : reason as UncachedCause
    else if (request.beyondTtl) cause = 'ttl_gap'
    else if (request.header !== requests[index - 1]!.header) cause = 'header_change'
    else cause = 'new_input'
    request.cause = cause
  })
}

/** The figures at the top of the page, summed from the rows (and the compaction calls, which have no row). */
export function summarize(timeline: Timeline, breaks: readonly ViewBreak[]): Omit<ViewSummary, 'emulatedUsage' | 'money'> {
  const { requests, headers } = timeline
  const tokens = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 }
  const byCause = Object.fromEntries(UNCACHED_CAUSES.map((cause) => [cause, 0])) as Record<UncachedCause, number>
  let withUsage = 0
  const add = (usage: ViewUsage, cause: UncachedCause) => {
    tokens.input += usage.input
    tokens.cacheRead += usage.cacheRead
    tokens.cacheWrite += usage.cacheWrite
    tokens.output += usage.output
    byCause[cause] += Math.max(0, usage.input - usage.cacheRead)
  }
  for (const request of requests) {
    if (!request.usage) continue
    withUsage++
    add(request.usage, request.cause)
  }
  for (const usage of timeline.compactionUsage) if (usage) add(usage, 'compaction')
  const models: string[] = []
  for (const request of requests) {
    const model = headers[request.header]!.model
    if (!models.includes(model)) models.push(model)
  }
  const toolMarkers = timeline.markers.filter((marker) => marker.kind === 'tools')
  return {
    models,
    requests: requests.length,
    turns: timeline.turns.size,
    withUsage,
    tokens,
    cachedShare: tokens.input > 0 ? tokens.cacheRead / tokens.input : null,
    uncached: { total: Object.values(byCause).reduce((sum, value) => sum + value, 0), byCause },
    // counted from the breaks, as the rows and the break list show them: a changed header is always a break
    headerChanges: breaks.filter((item) => item.headerChanged).length,
    toolsAdded: toolMarkers.reduce((sum, marker) => sum + marker.added.length, 0),
    toolsRemoved: toolMarkers.reduce((sum, marker) => sum + marker.removed.length, 0),
    compactions: timeline.markers.filter((marker) => marker.kind === 'compaction').length,
    failedTurns: timeline.failedTurns,
    failedRequests: requests.filter((request) => request.failed).length,
    resumes: requests.filter((request) => request.headerReason === 'resume').length,
    detectorBreaks: breaks.filter((item) => item.detector !== null).length,
    agreement: {
      agree: breaks.filter((item) => item.detector?.agreement === 'agree').length,
      disagree: breaks.filter((item) => item.detector?.agreement === 'disagree').length,
      dshOnly: breaks.filter((item) => item.detector?.agreement === 'dsh-only').length,
      providerOnly: breaks.filter((item) => item.detector?.agreement === 'provider-only').length,
    },
  }
}
