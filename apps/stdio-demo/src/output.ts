/** A writable the front door prints to; `process.stdout` in the bin. */
export type Output = NodeJS.WritableStream & { destroyed?: boolean; writableNeedDrain?: boolean }

/**
 * Writes `text` and waits while the stream's buffer is over its high-water mark, so a slow reader
 * (a pipe into `less`, a 1 MB answer) holds the next turn back instead of piling answers up in memory.
 * Resolves at once when the stream is gone: a closed stdout is handled by `watchClosed`.
 */
export function writeOut(output: Output, text: string): Promise<void> {
  if (output.destroyed) return Promise.resolve()
  if (output.write(text)) return Promise.resolve()
  return new Promise((resolve) => {
    const done = () => {
      output.off('drain', done)
      output.off('close', done)
      output.off('error', done)
      resolve()
    }
    output.on('drain', done)
    output.on('close', done)
    output.on('error', done)
  })
}

/**
 * Resolves once every byte written to `output` so far has been handed to the operating system, or the
 * stream is gone. `process.exit()` drops what a pipe has not taken yet, so the bin awaits this first.
 */
export function flushOut(output: Output): Promise<void> {
  if (output.destroyed) return Promise.resolve()
  return new Promise((resolve) => {
    output.write('', () => resolve())
    output.once('close', () => resolve())
  })
}

/**
 * Calls `onClosed` once when the reader of `output` went away (EPIPE: `… | head -c 100`), and keeps any
 * later write error on that stream from crashing the process. Other write errors are passed to `onError`.
 * Returns the disposer.
 */
export function watchClosed(output: Output, onClosed: () => void, onError: (error: Error) => void): () => void {
  let closed = false
  const listener = (error: NodeJS.ErrnoException) => {
    if (closed) return
    closed = true
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') onClosed()
    else onError(error)
  }
  output.on('error', listener)
  return () => output.off('error', listener)
}
