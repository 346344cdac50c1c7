/** The longest line `dsh-prompt` prints on stderr and in a text lint report, in UTF-8 bytes. */
export const LINE_MAX_BYTES = 4096

/**
 * Cuts every line of `text` longer than `LINE_MAX_BYTES` to fit, ending it with how much was left out:
 * `… (129000 more bytes)`. Lists in messages are capped already (`listNames`); this holds for any other text
 * a hostile app file puts in a message (a value, a description).
 */
export function boundLines(text: string, max = LINE_MAX_BYTES): string {
  return text.split('\n').map((line) => boundLine(line, max)).join('\n')
}

function boundLine(line: string, max: number): string {
  const bytes = Buffer.from(line)
  if (bytes.length <= max) return line
  // room for the suffix with the largest count it can hold
  const room = max - Buffer.byteLength(` … (${bytes.length} more bytes)`)
  // a cut inside a character decodes to U+FFFD at the end: drop it
  const kept = bytes.subarray(0, room).toString('utf8').replace(/\uFFFD$/, '')
  return `${kept} … (${bytes.length - Buffer.byteLength(kept)} more bytes)`
}
