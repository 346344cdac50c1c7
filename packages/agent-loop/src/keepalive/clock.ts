/**
 * Where the keepalive reads the time and sets its timers: the real clock, or a virtual one (the cache bench
 * and the tests run hours of idle time in milliseconds). A timer's callback may return a promise, which a
 * virtual clock awaits before it moves on.
 */
export interface KeepaliveClock {
  now(): number
  setTimeout(fire: () => unknown, ms: number): unknown
  clearTimeout(timer: unknown): void
}

/** The process clock; its timers are unref'd, so a waiting keepalive never keeps a process alive. */
export const realClock: KeepaliveClock = {
  now: () => Date.now(),
  setTimeout(fire, ms) {
    const timer = setTimeout(fire, ms)
    timer.unref?.()
    return timer
  },
  clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
}
