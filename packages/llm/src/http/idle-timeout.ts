/**
 * Yields what `source` yields, but gives up when no item arrives within `idleMs` of asking for it:
 * `onStall()` is called (it aborts the request, so the socket is released) and its error is thrown.
 * Only the wait for the source counts; time the consumer spends on an item does not.
 */
export async function* withIdleTimeout<T>(source: AsyncIterable<T>, idleMs: number, onStall: () => Error): AsyncGenerator<T, void, undefined> {
  const iterator = source[Symbol.asyncIterator]()
  let finished = false
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined
      const stalled = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(onStall()), idleMs)
      })
      let next: IteratorResult<T>
      try {
        next = await Promise.race([iterator.next(), stalled])
      } finally {
        clearTimeout(timer)
      }
      if (next.done) {
        finished = true
        return
      }
      yield next.value
    }
  } finally {
    // after a stall the source's pending read rejects once the request is aborted; nobody waits for it
    if (!finished) iterator.return?.()?.catch(() => {})
  }
}
