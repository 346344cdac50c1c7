import { findBreaks } from './breaks.ts'
import type { LoadedSession } from './events.ts'
import { foldKeepalive } from './keepalive.ts'
import type { SessionView, ViewTtl } from './model.ts'
import { moneyOf } from './money.ts'
import { assignCauses, summarize } from './summary.ts'
import { foldTimeline } from './timeline.ts'

/** Without a provider profile, gaps are shown but not judged: the log does not say which provider served it. */
export const TTL_PENDING: ViewTtl = { status: 'pending', note: "pass --provider <id> to mark the gaps beyond that provider's cache TTL" }

/** Usage records marked `emulated` (the offline model's), which the page and the report label as such. */
function emulatedUsage(events: LoadedSession['events']): number {
  return events.filter((event) => event.data?.usage?.emulated === true).length
}

/** Everything the page shows about a session, from its events alone. */
export function buildSessionView(session: LoadedSession, ttl: ViewTtl = TTL_PENDING): SessionView {
  const timeline = foldTimeline(session.events, session.source)
  const breaks = findBreaks(timeline)
  assignCauses(timeline, breaks, ttl)
  return {
    source: session.source,
    events: session.events.length,
    summary: { ...summarize(timeline, breaks), emulatedUsage: emulatedUsage(session.events), money: moneyOf(session.events, timeline.requests) },
    ttl,
    headers: timeline.headers,
    requests: timeline.requests,
    markers: timeline.markers,
    breaks,
    prompts: timeline.prompts,
    keepalive: foldKeepalive(session.events),
  }
}
