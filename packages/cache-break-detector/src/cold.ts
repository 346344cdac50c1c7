import type { Agent } from 'dsh-agent-loop'

/** Locales of the notice text (the loop's `noticeLocale()` picks one from the environment). */
export type ColdNoticeLocale = 'en' | 'zh'

/** An agent's prompt cache has gone cold: it sat idle past its model's cache TTL. */
export interface ColdCache {
  model: string
  /** The profile whose TTL passed, when the TTL is the profile's. */
  profile?: string
  ttlMs: number
  /** Time since the agent's last request went out. */
  idleMs: number
  /** Prompt tokens of that request: about what the next turn sends again without a cache read. */
  promptTokens: number
}

/**
 * One timer per agent: armed at each observed response for `ttlMs` after its request went out, re-armed by
 * the next one, and firing `onCold` only when the agent is idle by then (a running turn will find out by
 * itself). Timers are unref'd: they never keep a process alive.
 */
export class ColdWatch {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>()
  /** What each armed timer was armed with, so a keepalive ping can start the lifetime again. */
  private readonly armed = new Map<string, Omit<ColdCache, 'idleMs'>>()

  constructor(private readonly onCold: (agent: Agent, info: ColdCache) => void) {}

  /** A keepalive ping refreshed the agent's prefix at `at`: its lifetime starts again (when a timer is armed). */
  refreshed(agent: Agent, at: number): void {
    const info = this.armed.get(agent.id)
    if (info) this.arm(agent, info, at)
  }

  arm(agent: Agent, info: Omit<ColdCache, 'idleMs'>, dispatchedAt: number): void {
    this.disarm(agent.id)
    this.armed.set(agent.id, info)
    const delay = Math.max(0, dispatchedAt + info.ttlMs - Date.now())
    const timer = setTimeout(() => {
      this.timers.delete(agent.id)
      this.armed.delete(agent.id)
      if (agent.status === 'idle') this.onCold(agent, { ...info, idleMs: Date.now() - dispatchedAt })
    }, delay)
    timer.unref?.()
    this.timers.set(agent.id, timer)
  }

  disarm(agentId: string): void {
    clearTimeout(this.timers.get(agentId))
    this.timers.delete(agentId)
    this.armed.delete(agentId)
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
  }
}

/** The one line a front door shows for a cold cache, in English or Chinese. */
export function coldCacheNotice(info: ColdCache, locale: ColdNoticeLocale = 'en'): string {
  const tokens = info.promptTokens.toLocaleString('en-US')
  return locale === 'zh'
    ? `提示缓存已过期：空闲 ${duration(info.idleMs, locale)}，超过 ${info.model} 的缓存有效期（${duration(info.ttlMs, locale)}）；下一轮将不经缓存重新发送约 ${tokens} 个 token`
    : `Prompt cache cold: idle ${duration(info.idleMs, locale)}, past ${info.model}'s ${duration(info.ttlMs, locale)} cache TTL; the next turn re-sends about ${tokens} tokens uncached`
}

function duration(ms: number, locale: ColdNoticeLocale): string {
  const [value, unit] = ms < 1000 ? [ms, locale === 'zh' ? '毫秒' : 'ms']
    : ms < 60_000 ? [ms / 1000, locale === 'zh' ? '秒' : 's']
      : ms < 3_600_000 ? [ms / 60_000, locale === 'zh' ? '分钟' : 'min']
        : [ms / 3_600_000, locale === 'zh' ? '小时' : 'h']
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1)
  return locale === 'zh' ? `${shown} ${unit}` : `${shown} ${unit}`
}
