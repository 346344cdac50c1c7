/** The most characters `quote` shows of one string: a message quoting a few values stays a bounded line. */
const QUOTED_MAX = 1000

/**
 * Quotes a value for an error message the way JSON would, so odd characters stay visible. A string past
 * `QUOTED_MAX` characters shows its start and how many characters it has: `"abc…" (1000000 characters)`.
 */
export function quote(value: unknown): string {
  if (typeof value !== 'string') return String(value)
  if (value.length <= QUOTED_MAX) return JSON.stringify(value)
  return `${JSON.stringify(value.slice(0, QUOTED_MAX - 1) + '…')} (${value.length} characters)`
}

/** Names a value for an error message: strings JSON-quoted, scalars as written, the rest by kind. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (typeof value === 'string') return quote(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'function') return 'a function'
  if (Array.isArray(value)) return 'an array'
  return 'an object'
}

/** The most UTF-8 bytes `listNames` spends on one list, so a message holding a few lists stays under 4 KiB. */
const LIST_MAX_BYTES = 1024
/** The most characters one listed name keeps; a longer one is cut and ends with `…`. */
const LISTED_NAME_MAX = 120

/**
 * Lists names for an error message, capped so a registry of thousands, or one absurd name, does not flood
 * the log or the model: at most `limit` names and `maxBytes` UTF-8 bytes (each name cut at 120
 * characters), then `… and N more`. `(none)` when empty.
 */
export function listNames(names: Iterable<string>, limit = 50, maxBytes = LIST_MAX_BYTES): string {
  const all = [...names]
  if (all.length === 0) return '(none)'
  const shown: string[] = []
  let bytes = 0
  for (const name of all) {
    if (shown.length === limit) break
    const clipped = name.length > LISTED_NAME_MAX ? `${name.slice(0, LISTED_NAME_MAX - 1)}…` : name
    bytes += Buffer.byteLength(clipped) + (shown.length ? 2 : 0)
    // the first name always shows: a list that names nothing says little
    if (shown.length && bytes > maxBytes) break
    shown.push(clipped)
  }
  const rest = all.length - shown.length
  return rest ? `${shown.join(', ')}, … and ${rest} more` : shown.join(', ')
}

/**
 * Text as one line, the one rule for every line a person reads (an error, a tool's output, a session's title):
 * every run of whitespace that holds a line break becomes one space and the ends are trimmed; other spacing
 * is kept, so a value named in an error reads as it was given. Past `max` UTF-16 units it is cut, never inside
 * a character (a surrogate pair), and ends with `…`.
 */
export function oneLine(text: string, max = Infinity): string {
  const flat = text.trim().replace(/\s*[\r\n\u2028\u2029]\s*/g, ' ')
  if (flat.length <= max) return flat
  let end = max - 1
  // a high surrogate at the cut would leave half a character (an emoji, a rare CJK ideograph) before the `…`
  if (end > 0 && isHighSurrogate(flat.charCodeAt(end - 1))) end--
  return `${flat.slice(0, end)}…`
}

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff

/** A thrown value as one line of text, without assuming it is an `Error`. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  if (typeof error === 'string') return error
  try {
    return JSON.stringify(error) ?? String(error)
  } catch {
    return 'an unprintable value'
  }
}
