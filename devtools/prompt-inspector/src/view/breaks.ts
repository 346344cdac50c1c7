import PromptCache from 'dsh-cache-break-detector'
import { diffPrefixes } from '../diff.ts'
import type { PrefixSource } from '../sources.ts'
import { explainBreak } from './explain-break.ts'
import { prefixText } from './headers.ts'
import type { ViewBreak, ViewDiff, ViewHeader } from './model.ts'
import type { LoggedBreak, Timeline } from './timeline.ts'

/** Characters of context shown on either side of the first differing byte. */
const CONTEXT_CHARS = 160

/**
 * The breaks of a timeline: each request whose header bytes differ from the request before it, and each
 * request the detector logged a `prompt-cache/break` for, with the prefix diff of the two headers.
 * Marks each request's `break` index.
 */
export function findBreaks(timeline: Timeline): ViewBreak[] {
  const { requests, headers } = timeline
  const byRequest = new Map<number, LoggedBreak>()
  for (const logged of timeline.detector) if (!byRequest.has(logged.request)) byRequest.set(logged.request, logged)
  const breaks: ViewBreak[] = []
  requests.forEach((request, index) => {
    const previous = index > 0 ? requests[index - 1]!.header : null
    const logged = byRequest.get(index)
    // a snapshot fixture's placeholder hides the tools: a header the log says changed is taken at its word
    const placeholder = headers[request.header]!.tools === null && request.headerReason !== null && request.headerReason !== 'initial'
    const changed = previous !== null && (previous !== request.header || placeholder)
    if (!logged && !changed) return
    const detector = logged ? detectorOf(logged) : null
    const diff = previous !== null ? diffHeaders(headers[previous]!, headers[request.header]!, detector) : null
    const markers = timeline.markers.filter((marker) => marker.before === index)
    const { label, explanation } = explainBreak({
      request, changed, previous: previous === null ? null : headers[previous]!, current: headers[request.header]!, markers, detector, diffSummary: diff?.summary ?? null,
    })
    request.break = breaks.length
    breaks.push({ request: index, previousHeader: previous, header: request.header, detector, diff, headerChanged: changed, label, explanation })
  })
  return breaks
}

function detectorOf({ seq, data }: LoggedBreak): NonNullable<ViewBreak['detector']> {
  const strings = (value: unknown) => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [])
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0)
  return {
    seq,
    reason: String(data.reason ?? ''),
    allReasons: strings(data.allReasons),
    section: typeof data.section === 'string' ? data.section : null,
    offset: Number.isSafeInteger(data.offset) ? data.offset : null,
    previousCacheReadTokens: count(data.previousCacheReadTokens),
    currentCacheReadTokens: count(data.currentCacheReadTokens),
    changedToolNames: strings(data.changedToolNames),
    provider: providerOf(data.provider),
    agreement: typeof data.agreement === 'string' ? data.agreement : null,
  }
}

/** The provider's side of a logged break; a reason DSH's table does not know stays as it came, marked unknown. */
function providerOf(value: unknown): NonNullable<ViewBreak['detector']>['provider'] {
  if (value === null || typeof value !== 'object') return null
  const { reason, missedTokens, pending } = value as Record<string, unknown>
  const named = typeof reason === 'string' ? reason : null
  return {
    reason: named,
    known: named === null || Object.hasOwn(PromptCache.PROVIDER_REASONS, named),
    missedTokens: typeof missedTokens === 'number' && Number.isFinite(missedTokens) ? missedTokens : null,
    pending: pending === true,
  }
}

/** The prefix diff of two logged headers (`diffPrefixes`, over dsh-system-prompt's one `prefixDiff`), or null when their prefix bytes are the same or a side is a placeholder. */
function diffHeaders(previous: ViewHeader, current: ViewHeader, detector: ViewBreak['detector']): ViewDiff | null {
  if (!previous.tools || !current.tools) return null
  const diff = diffPrefixes(asSource(previous), asSource(current))
  const divergence = diff.divergence
  if (!divergence) return null
  let section: string | null
  if (divergence.tool) section = `tool #${divergence.tool.index} ${JSON.stringify(divergence.tool.b ?? divergence.tool.a)}`
  else {
    // a session log keeps only the rendered prompt; the detector knew the sections when it logged the break
    const inSystem = divergence.system!.offset
    section = detector?.section && detector.offset === inSystem ? detector.section : null
  }
  return {
    offset: divergence.offset,
    part: divergence.part,
    cause: divergence.tool ? divergence.tool.cause : divergence.system!.cause,
    section,
    summary: divergence.summary,
    previous: around(prefixText(previous), divergence.offset),
    current: around(prefixText(current), divergence.offset),
  }
}

function asSource(header: ViewHeader): PrefixSource {
  return { input: `seq ${header.seq}`, kind: 'session', header: { model: header.model, system: header.system, tools: header.tools! }, sections: null, event: null }
}

/** The text before and from byte `offset` of `text`, cut to CONTEXT_CHARS each way. */
function around(text: string, offset: number): { before: string; after: string } {
  const bytes = Buffer.from(text, 'utf8')
  // a difference inside a multi-byte character shows from that character's first byte
  let start = offset
  while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start--
  const at = bytes.subarray(0, start).toString('utf8').length
  const from = Math.max(0, at - CONTEXT_CHARS)
  return { before: `${from > 0 ? '…' : ''}${text.slice(from, at)}`, after: `${text.slice(at, at + CONTEXT_CHARS)}${at + CONTEXT_CHARS < text.length ? '…' : ''}` }
}
