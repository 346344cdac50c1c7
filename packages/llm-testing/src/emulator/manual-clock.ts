interface Timer {
  due: number
  seq: number
  fire: () => unknown
}

/**
 * A clock that moves only when told: `now` for the emulator's TTLs, `setTimeout`/`clearTimeout` for a
 * keepalive's timers. `advance(ms)` moves the time forward, firing each timer that falls due on the way at its
 * own time (ties in the order they were set) and awaiting what it returns, so a ping's request round trip
 * happens at the virtual moment it was due. Hours of idle time take milliseconds.
 */
export class ManualClock {
  private time: number
  private seq = 0
  private readonly timers = new Set<Timer>()

  constructor(start = Date.UTC(2026, 11, 6)) {
    this.time = start
  }

  readonly now = (): number => this.time

  setTimeout(fire: () => unknown, ms: number): unknown {
    const timer: Timer = { due: this.time + Math.max(0, ms), seq: this.seq++, fire }
    this.timers.add(timer)
    return timer
  }

  clearTimeout(timer: unknown): void {
    this.timers.delete(timer as Timer)
  }

  /** Moves the time `ms` forward, firing and awaiting every timer due by then in order. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms
    for (;;) {
      let next: Timer | undefined
      for (const timer of this.timers) if (timer.due <= end && (!next || timer.due < next.due || (timer.due === next.due && timer.seq < next.seq))) next = timer
      if (!next) break
      this.timers.delete(next)
      this.time = Math.max(this.time, next.due)
      await next.fire()
    }
    this.time = end
  }
}
