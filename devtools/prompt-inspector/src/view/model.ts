import { BREAK_REASONS } from 'dsh-cache-break-detector'
import type { ToolSchema } from 'dsh-core'
import type { ViewKeepalive } from './keepalive.ts'
import type { ViewMoney } from './money.ts'

/** A reason of the prefix itself (one of `BREAK_REASONS`). */
type PrefixReason = (typeof BREAK_REASONS)[number]

/**
 * Why a request's prompt tokens were billed without the cache. `new_input` is the ordinary uncached tail
 * (history added since the request before); the others name what made the cache miss more than that,
 * the detector's prefix reasons among them.
 */
export type UncachedCause = 'first_request' | 'resume' | 'compaction' | 'ttl_gap' | PrefixReason | 'header_change' | 'new_input'

/** Causes in the order the summary lists them. */
export const UNCACHED_CAUSES: readonly UncachedCause[] = ['first_request', 'resume', 'compaction', 'ttl_gap', ...BREAK_REASONS, 'header_change', 'new_input']

/** One distinct request header of the session; requests point at it by index, so repeats cost nothing. */
export interface ViewHeader {
  /** Seq of the first `request/header` event that logged these bytes. */
  seq: number
  model: string
  system: string
  /** The tools in request order; null when the log stores a placeholder instead (snapshot fixtures). */
  tools: ToolSchema[] | null
  deferredTools: string[]
  /** `JSON.stringify(tools)` exactly as sent, or the placeholder as logged. */
  toolsText: string
  bytes: { tools: number; system: number }
}

/** Token figures of one response, as the provider reported them. */
export interface ViewUsage {
  input: number
  cacheRead: number
  cacheWrite: number
  output: number
}

/** One model request: a step's dispatch. */
export interface ViewRequest {
  index: number
  /** Seq of its `step/start`. */
  seq: number
  /** Epoch ms of the dispatch; null when the log's time is not a date (normalized fixtures). */
  time: number | null
  turn: number
  step: number
  /** Index into `headers`: the header in force for this request. */
  header: number
  /** Reason of the `request/header` logged for this request, null when the header in force was reused. */
  headerReason: 'initial' | 'resume' | 'change' | 'model' | null
  /** Idle time since the previous request's response (or its dispatch, if it had none); null for the first. */
  gapMs: number | null
  /** Beyond the provider profile's cache TTL; null while no profile is known. */
  beyondTtl: boolean | null
  usage: ViewUsage | null
  /** UTF-8 bytes of each part of the prompt; history is estimated from the logged events. */
  sizes: { tools: number; system: number; history: number }
  /** Index into `breaks` when this request is one. */
  break: number | null
  /** No response was logged for it (the call failed or was cancelled). */
  failed: boolean
  cause: UncachedCause
  /** The first line of the response's text, or the tools it called when it has no text; '' without a response. */
  answer: string
}

/** Something that happened between two requests. */
export type ViewMarker =
  | { kind: 'tools'; before: number; seq: number; added: string[]; removed: string[] }
  | { kind: 'compaction'; before: number; seq: number; reason: string; summaryChars: number }
  | { kind: 'resume'; before: number; seq: number }
  | { kind: 'turn-failed'; before: number; seq: number; turn: number; message: string }

/** The prefix diff shown for a break. */
export interface ViewDiff {
  /** First differing UTF-8 byte of `JSON.stringify(tools) + "\n" + system`. */
  offset: number
  part: 'tools' | 'system'
  /** `prefixDiff`'s cause: order / schema / added / removed for a tool, a section or system cause otherwise. */
  cause: string
  /** The section (system) or tool (tools) holding that byte, as far as the log tells. */
  section: string | null
  summary: string
  /** Text on either side of the differing byte, from the previous and this request's prefix. */
  previous: { before: string; after: string }
  current: { before: string; after: string }
}

/** A request whose prefix differs from the one before it, or that the detector logged a break for. */
export interface ViewBreak {
  request: number
  /** Header indexes of the request before and this one. */
  previousHeader: number | null
  header: number
  /** The `prompt-cache/break` event logged for this request, as logged. */
  detector: {
    seq: number; reason: string; allReasons: string[]; section: string | null; offset: number | null; previousCacheReadTokens: number; currentCacheReadTokens: number; changedToolNames: string[]
    /** The provider's verdict on the same request, as the break logged it (null: the route gives none). `known`: DSH's provider table has the reason. */
    provider: { reason: string | null; known: boolean; missedTokens: number | null; pending: boolean } | null
    /** `agree`, `disagree`, `dsh-only`, `provider-only`; null when not logged. */
    agreement: string | null
  } | null
  /** Null when the two prefixes are the same bytes (a break without a prefix change) or unknown. */
  diff: ViewDiff | null
  /** The header in force differs from the request before's: what the `header changes` figure counts. */
  headerChanged: boolean
  /** What the break is called in the list and on its row: the detector's reason, else the kind of header change. */
  label: string
  /** One sentence on what caused it, e.g. "resumed without the MCP servers the session had (github): …". */
  explanation: string
}

export interface ViewSummary {
  models: string[]
  requests: number
  turns: number
  /** Requests whose response carried usage. */
  withUsage: number
  tokens: { input: number; cacheRead: number; cacheWrite: number; output: number }
  /** cacheRead / input over the requests with usage; null when none had usage. */
  cachedShare: number | null
  /** input − cacheRead over the requests with usage, split by cause. */
  uncached: { total: number; byCause: Record<UncachedCause, number> }
  /** Breaks whose header differs from the request before's (`ViewBreak.headerChanged`): the rows' own count. */
  headerChanges: number
  toolsAdded: number
  toolsRemoved: number
  compactions: number
  failedTurns: number
  failedRequests: number
  resumes: number
  detectorBreaks: number
  /** The agreement of the provider's verdict with DSH's reason over the detector's breaks (`prompt-cache/break` `agreement`). */
  agreement: { agree: number; disagree: number; dshOnly: number; providerOnly: number }
  /** Usage records the offline model emulated (`usage.emulated`): figures no provider reported. */
  emulatedUsage: number
  /** What the session cost in USD, per cause and against no cache (its `request/cost` records); null without a price. */
  money: ViewMoney | null
}

/** What the TTL marks are measured against. */
export type ViewTtl =
  | { status: 'pending'; note: string }
  | { status: 'unbounded'; note: string }
  | { status: 'known'; ttlMs: number; profile: string; name: string }

/** Everything the page shows, computed from the log alone. */
export interface SessionView {
  source: string
  events: number
  summary: ViewSummary
  ttl: ViewTtl
  headers: ViewHeader[]
  requests: ViewRequest[]
  markers: ViewMarker[]
  breaks: ViewBreak[]
  /** Each turn's user text (what the user asked), by turn number. */
  prompts: Record<number, string>
  /** The keepalive's pings and savings; null when it never acted. */
  keepalive: ViewKeepalive | null
}
