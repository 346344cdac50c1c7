import { PassThrough } from 'node:stream'
import type { ReadStream } from 'node:tty'

const START = '\x1b[200~'
const END = '\x1b[201~'
/** Stands for a line break inside a pasted block while it is edited on one line (U+2424 SYMBOL FOR NEWLINE). */
export const PASTED_NEWLINE = '\u2424'
/** Asks the terminal to mark pastes; the second turns it off again. */
export const BRACKETED_PASTE_ON = '\x1b[?2004h'
export const BRACKETED_PASTE_OFF = '\x1b[?2004l'

/**
 * The longest tail of `text` that begins a marker: a marker split across two reads. A lone ESC is not held,
 * so the ESC key still acts at once.
 */
function partialMarker(text: string): number {
  for (let length = Math.min(text.length, START.length - 1); length > 1; length--) {
    const tail = text.slice(-length)
    if (START.startsWith(tail) || END.startsWith(tail)) return length
  }
  return 0
}

/**
 * Rewrites terminal input so that a pasted block arrives as one line: inside the terminal's paste markers
 * (bracketed paste) each line break becomes `PASTED_NEWLINE`, and the markers are dropped. Feed it raw
 * terminal text in chunks; it keeps a marker split across two chunks until the next one.
 */
export class PasteJoiner {
  private pasting = false
  private carry = ''

  push(chunk: string): string {
    let text = this.carry + chunk
    const held = partialMarker(text)
    this.carry = text.slice(text.length - held)
    text = text.slice(0, text.length - held)
    let out = ''
    while (text) {
      const marker = this.pasting ? END : START
      const at = text.indexOf(marker)
      const part = at < 0 ? text : text.slice(0, at)
      // \r\n, \r and \n each end one pasted line
      out += this.pasting ? part.replace(/\r\n|\r|\n/g, PASTED_NEWLINE) : part
      if (at < 0) break
      this.pasting = !this.pasting
      text = text.slice(at + marker.length)
    }
    return out
  }
}

/** The line as typed, with pasted line breaks restored. */
export function restoreLines(line: string): string {
  return line.split(PASTED_NEWLINE).join('\n')
}

/**
 * The terminal's input for readline, pastes joined: `stdin` in raw mode piped through a `PasteJoiner`
 * into a stream readline takes for a terminal (raw mode is ours to set, so its `setRawMode` is a no-op).
 * `close()` restores the terminal's mode.
 */
export function pasteAwareInput(stdin: ReadStream): { input: NodeJS.ReadableStream; close(): void } {
  const joiner = new PasteJoiner()
  const input = Object.assign(new PassThrough({ encoding: 'utf8' }), { isTTY: true, setRawMode: () => input })
  stdin.setRawMode(true)
  stdin.setEncoding('utf8')
  const forward = (chunk: string) => { input.write(joiner.push(chunk)) }
  const end = () => input.end()
  stdin.on('data', forward)
  stdin.on('end', end)
  return {
    input,
    close() {
      stdin.off('data', forward)
      stdin.off('end', end)
      stdin.setRawMode(false)
      stdin.pause()
    },
  }
}
