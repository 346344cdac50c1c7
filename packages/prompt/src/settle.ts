import type { Context } from 'cordis'
import type {} from 'dsh-tools'
import { allFibers } from './fibers.ts'

/** A tool that a `dsh-tools-static` plugin registers after a delay. */
export interface DelayedTool {
  name: string
  delayMs: number
}

/** What waiting for the app to settle found. */
export interface SettleReport {
  /** Delayed dsh-tools-static registrations found in the booted app. */
  delayed: DelayedTool[]
  /** Delayed tools still unregistered when waiting stopped (e.g. a registration that was refused). */
  missing: string[]
  waitedMs: number
  /** True when changes kept coming until the hard limit. */
  timedOut: boolean
}

const POLL_MS = 10
const HARD_LIMIT_MS = 10_000

/** The delayed tools of every running `tools-static` plugin, read from the configs they were started with. */
export function delayedStaticTools(ctx: Context): DelayedTool[] {
  const delayed: DelayedTool[] = []
  for (const fiber of allFibers(ctx)) {
    if (fiber.runtime?.name !== 'tools-static') continue
    const tools: unknown = fiber.config?.tools
    if (!Array.isArray(tools)) continue
    for (const tool of tools) {
      if (tool && typeof tool.name === 'string' && typeof tool.delayMs === 'number' && tool.delayMs > 0) {
        delayed.push({ name: tool.name, delayMs: tool.delayMs })
      }
    }
  }
  return delayed
}

// FiberState.LOADING: an async apply still running (e.g. dsh-tools-mcp waiting for its servers' first lists)
const LOADING = 1
const starting = (ctx: Context) => allFibers(ctx).some((fiber) => fiber.state === LOADING)

/**
 * Waits until the booted app stops changing its prompt: no plugin is still starting, every delayed `tools-static` tool is registered
 * (or its delay plus `settleMs` has passed since boot, for one that never arrives), and no `tools/change`
 * or `system-prompt/change` happened for `settleMs`. Timers start before `boot()` resolves, so
 * `bootedAt + delayMs` bounds each delayed registration.
 */
export async function settle(ctx: Context, settleMs: number, bootedAt = Date.now()): Promise<SettleReport> {
  const delayed = delayedStaticTools(ctx)
  const maxDelay = Math.max(0, ...delayed.map((tool) => tool.delayMs))
  const tools = ctx.get('tools')
  const isMissing = (tool: DelayedTool) => !tools?.has(tool.name)
  let lastChange = bootedAt
  const touch = () => { lastChange = Date.now() }
  const off = [ctx.on('tools/change', touch), ctx.on('system-prompt/change', touch)]
  const giveUp = bootedAt + maxDelay + settleMs + HARD_LIMIT_MS
  let timedOut = false
  try {
    while (true) {
      const now = Date.now()
      const timersDone = !delayed.some(isMissing) || now >= bootedAt + maxDelay + settleMs
      if (timersDone && !starting(ctx) && now - lastChange >= settleMs) break
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
    delayed,
    missing: delayed.filter(isMissing).map((tool) => tool.name),
    waitedMs: Date.now() - bootedAt,
    timedOut,
  }
}
