/** A stream that may be a terminal (`process.stdout`, `process.stderr`). */
export type MaybeTerminal = NodeJS.WritableStream & { isTTY?: boolean }

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const LABEL = ' thinking…'
const FRAME_MS = 120

/** The indicator shown while the model has not answered yet. */
export interface Thinking {
  /** Clears the indicator (the first chunk arrived, or the turn ended); later calls do nothing. */
  stop(): void
}

/**
 * Shows a spinner and "thinking…" on the first of `streams` that is a terminal, redrawn in place, until
 * `stop()`. On no terminal it shows nothing: an answer piped on never carries it. Erased with spaces, not an
 * escape sequence, so it also clears on a dumb terminal.
 */
export function showThinking(...streams: MaybeTerminal[]): Thinking {
  const terminal = streams.find((stream) => stream.isTTY)
  if (!terminal) return { stop() {} }
  let frame = 0
  const draw = () => terminal.write(`\r${FRAMES[frame++ % FRAMES.length]}${LABEL}`)
  draw()
  const timer = setInterval(draw, FRAME_MS)
  let shown = true
  return {
    stop() {
      if (!shown) return
      shown = false
      clearInterval(timer)
      terminal.write(`\r${' '.repeat(1 + LABEL.length)}\r`)
    },
  }
}
