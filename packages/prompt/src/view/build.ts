import { findBreaks } from './breaks.ts'
import type { LoadedSession } from './events.ts'
import type { SessionView, ViewTtl } from './model.ts'
import { assignCauses, summarize } from './summary.ts'
import { foldTimeline } from './timeline.ts'

/** Until provider profiles name a cache TTL, gaps are shown but not judged. */
export const TTL_PENDING: ViewTtl = { status: 'pending', note: 'TTL marks need the provider profiles of dsh-llm, which are not there yet' }

/** Everything the page shows about a session, from its events alone. */
export function buildSessionView(session: LoadedSession, ttl: ViewTtl = TTL_PENDING): SessionView {
  const timeline = foldTimeline(session.events, session.source)
  const breaks = findBreaks(timeline)
  assignCauses(timeline, breaks, ttl)
  return {
    source: session.source,
    events: session.events.length,
    summary: summarize(timeline, breaks),
    ttl,
    headers: timeline.headers,
    requests: timeline.requests,
    markers: timeline.markers,
    breaks,
    prompts: timeline.prompts,
  }
}
