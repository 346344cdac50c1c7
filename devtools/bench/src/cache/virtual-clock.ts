/** Delays at or above this many milliseconds are virtual while a `VirtualClock` is installed. */
export const VIRTUAL_EPOCH_MS = 86_400_000

interface Pending {
  due: number
  seq: number
  fire: () => void
  cleared: boolean
}

/**
 * A clock for the tool plugins' registration delays, so a boot's registration race has the same
 * outcome on a busy machine as on an idle one. While installed, `setTimeout` calls with a delay of at
 * least `VIRTUAL_EPOCH_MS` are queued instead of scheduled (every other timer stays real); `run()` then
 * fires them in order of their delay, ties in the order they were set, each in its own macrotask, so
 * what they do interleaves with the event loop as real timers would, only without the real waiting.
 */
export class VirtualClock {
  private readonly pending: Pending[] = []
  private seq = 0
  private restore: (() => void) | undefined

  install(): void {
    const realSet = globalThis.setTimeout
    const realClear = globalThis.clearTimeout
    const virtualSet = ((fire: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      if (typeof ms !== 'number' || ms < VIRTUAL_EPOCH_MS) return realSet(fire, ms, ...args)
      const timer: Pending = { due: ms, seq: this.seq++, fire: () => fire(...args), cleared: false }
      this.pending.push(timer)
      return timer
    }) as typeof setTimeout
    const virtualClear = ((timer: unknown) => {
      if (this.pending.includes(timer as Pending)) (timer as Pending).cleared = true
      else realClear(timer as Parameters<typeof clearTimeout>[0])
    }) as typeof clearTimeout
    globalThis.setTimeout = virtualSet
    globalThis.clearTimeout = virtualClear
    this.restore = () => {
      globalThis.setTimeout = realSet
      globalThis.clearTimeout = realClear
    }
  }

  uninstall(): void {
    this.restore?.()
    this.restore = undefined
  }

  /** Fires every queued timer, earliest first; a cleared one is skipped. */
  async run(): Promise<void> {
    const queue = this.pending.splice(0).sort((a, b) => a.due - b.due || a.seq - b.seq)
    for (const timer of queue) {
      await new Promise<void>((resolve) => setImmediate(resolve))
      if (!timer.cleared) timer.fire()
    }
  }
}
