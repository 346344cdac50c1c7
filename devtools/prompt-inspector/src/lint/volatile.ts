import { tmpdir } from 'node:os'

/** A piece of text that will not be the same tomorrow, in another run, or on another machine. */
export interface VolatileMatch {
  kind: 'date' | 'time' | 'random-id' | 'temp-path'
  text: string
  /** Character index in the scanned text. */
  index: number
}

const MONTHS = 'Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?'
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
const TEMP_ROOTS = [...new Set(['/tmp', '/var/tmp', '/private/tmp', '/var/folders', '/private/var/folders', tmpdir()])]

const PATTERNS: [VolatileMatch['kind'], RegExp][] = [
  ['temp-path', new RegExp(`(?:${TEMP_ROOTS.map(escape).join('|')})(?:[/\\\\][^\\s"'\`<>|]*)?(?![\\w-])|[A-Za-z]:\\\\(?:[^\\\\\\s]+\\\\)*?Temp(?:\\\\[^\\s"'\`<>|]*)?`, 'g')],
  ['date', new RegExp(`\\b\\d{4}-\\d{2}-\\d{2}\\b|\\b\\d{1,2}/\\d{1,2}/\\d{2,4}\\b|\\b(?:${MONTHS})\\.? \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}\\b|\\b\\d{1,2} (?:${MONTHS})\\.? \\d{4}\\b`, 'g')],
  ['time', /\b(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:\s?(?:[AaPp][Mm]|Z|UTC|GMT))?\b/g],
  ['random-id', /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b|\b[0-9a-f]{16,}\b|\b(?=[A-Za-z0-9]*\d[A-Za-z0-9]*\d)(?=[A-Za-z0-9]*[A-Za-z][A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{20,}\b/g],
]

/**
 * Text in `text` that looks like a date, a time of day, a random id (a UUID, a long hex or mixed run) or a
 * path under a temp folder, in text order. Overlapping matches keep the earliest (then the longest).
 */
export function findVolatile(text: string): VolatileMatch[] {
  const found: VolatileMatch[] = []
  for (const [kind, pattern] of PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      // a path at the end of a sentence does not own the full stop
      const matched = kind === 'temp-path' ? match[0].replace(/[.,;:!?]+$/, '') : match[0]
      found.push({ kind, text: matched, index: match.index! })
    }
  }
  found.sort((a, b) => a.index - b.index || b.text.length - a.text.length)
  const kept: VolatileMatch[] = []
  let end = -1
  for (const match of found) {
    if (match.index < end) continue
    kept.push(match)
    end = match.index + match.text.length
  }
  return kept
}
