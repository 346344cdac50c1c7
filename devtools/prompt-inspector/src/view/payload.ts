import { UNCACHED_CAUSES, type SessionView } from './model.ts'

const REASONS = [null, 'initial', 'resume', 'change', 'model'] as const

/**
 * The data the page carries, compact: headers once each, and every request as a flat array in the order
 * of `ROW_FIELDS`, so a 10,000-request session stays well under a few megabytes.
 */
export function encodePayload(view: SessionView) {
  return {
    source: view.source,
    events: view.events,
    summary: view.summary,
    ttl: view.ttl,
    causes: UNCACHED_CAUSES,
    headers: view.headers.map(({ seq, model, system, tools, toolsText, deferredTools, bytes }) => ({
      seq, model, system, toolsText, placeholder: tools === null, toolNames: tools ? tools.map((tool) => tool.name) : [], deferredTools, bytes,
    })),
    rowFields: ROW_FIELDS,
    rows: view.requests.map((request) => [
      request.seq, request.time ?? -1, request.turn, request.step, request.header, REASONS.indexOf(request.headerReason),
      request.gapMs ?? -1, request.usage?.input ?? -1, request.usage?.cacheRead ?? -1, request.usage?.cacheWrite ?? -1, request.usage?.output ?? -1,
      request.sizes.tools, request.sizes.system, request.sizes.history, request.break ?? -1, request.failed ? 1 : 0,
      UNCACHED_CAUSES.indexOf(request.cause), request.beyondTtl === null ? -1 : request.beyondTtl ? 1 : 0,
    ]),
    markers: view.markers,
    breaks: view.breaks,
    prompts: Object.fromEntries(Object.entries(view.prompts).map(([turn, text]) => [turn, cut(text)])),
    // by request, as the rows: the first line of each response
    answers: view.requests.map((request) => cut(request.answer, ANSWER_CHARS)),
  }
}

/** Prompts longer than this are cut in the page (the log keeps them whole). */
const PROMPT_CHARS = 2000

/** An answer's first line is cut shorter: a row shows the start of it. */
const ANSWER_CHARS = 300

function cut(text: string, max = PROMPT_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text
}

/** Field names of a request row in the payload; -1 stands for "not known". */
export const ROW_FIELDS = [
  'seq', 'time', 'turn', 'step', 'header', 'reason', 'gapMs', 'input', 'cacheRead', 'cacheWrite', 'output',
  'toolsBytes', 'systemBytes', 'historyBytes', 'break', 'failed', 'cause', 'beyondTtl',
] as const

/**
 * JSON that is safe inside a `<script>` element: `<`, `>` and `&` are written as `\u` escapes, so no
 * session text (`</script>`, `<!--`) can end the element or start markup; U+2028/2029 likewise.
 */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** Text escaped for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)
}
