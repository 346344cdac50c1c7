import type { Context } from 'cordis'
import type { PendingEntry } from 'dsh-core'
import type {} from 'dsh-tools'
import type {} from 'dsh-system-prompt'

/** What waiting for the app to settle found. */
export interface SettleReport {
  /** When the app became ready, in ms from the start of its boot (`ctx.readiness`); null without a startup barrier. */
  readyMs: number | null
  /** Entries still starting when waiting stopped (`ctx.readiness.pending()`): their tools may be missing. */
  starting: PendingEntry[]
  waitedMs: number
  /** True when the app kept changing (or an entry kept starting) until the hard limit. */
  timedOut: boolean
}

const POLL_MS = 10
const HARD_LIMIT_MS = 10_000

/**
 * Waits until the booted app stops changing its prompt: it is ready and no entry is still starting (its
 * startup barrier, `ctx.readiness`, which waits for every plugin's start, `dsh-tools-static` delays and
 * `dsh-tools-mcp` first listings included), and no `tools/change` or `system-prompt/change` happened for
 * `settleMs`. Gives up after 10 s more of changes. A context without a startup barrier counts as ready.
 */
export async function settle(ctx: Context, settleMs: number, bootedAt = Date.now()): Promise<SettleReport> {
  const readiness = ctx.get('readiness', false)
  const starting = () => readiness?.pending() ?? []
  let lastChange = bootedAt
  const touch = () => { lastChange = Date.now() }
  const off = [ctx.on('tools/change', touch), ctx.on('system-prompt/change', touch)]
  const giveUp = bootedAt + settleMs + HARD_LIMIT_MS
  let timedOut = false
  try {
    if (readiness && !readiness.isReady) {
      await Promise.race([readiness.ready, new Promise((resolve) => setTimeout(resolve, Math.max(0, giveUp - Date.now())))])
    }
    while (true) {
      const now = Date.now()
      if ((!readiness || readiness.isReady) && !starting().length && now - lastChange >= settleMs) break
      if (now >= giveUp) {
        timedOut = true
        break
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    }
  } finally {
    off.forEach((dispose) => dispose())
  }
  return {
    readyMs: readiness?.readyReport?.elapsedMs ?? null,
    starting: starting(),
    waitedMs: Date.now() - bootedAt,
    timedOut,
  }
}
