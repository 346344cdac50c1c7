/**
 * The v4 loader calls `fiber.await().finally(...)` on every entry and drops the result, so an entry that
 * fails also leaves an unhandled rejection, which would crash the process with a stack trace before boot
 * could report it. While installed, this absorbs rejections whose reason `isKnown` (boot reports those);
 * any other reason is rethrown when nobody else listens, as Node's default would do.
 */
export function absorbKnownRejections(isKnown: (reason: unknown) => boolean): () => void {
  const listener = (reason: unknown) => {
    if (isKnown(reason)) return
    if (process.listenerCount('unhandledRejection') === 1) throw reason
  }
  process.on('unhandledRejection', listener)
  return () => {
    // the loader's rejections surface a turn after the failure: let them arrive before letting go
    setImmediate(() => process.off('unhandledRejection', listener))
  }
}
