import type { Context } from 'cordis'
import { messageOf, type Usage } from 'dsh-core'
import { collect, type GenerateOptions } from 'dsh-llm'
import type { Agent } from '../agent.ts'
import { estimateFill } from '../fill.ts'
import { nextRequest } from '../reconstruct.ts'
import type { AgentUpdate } from '../types.ts'
import { realClock, type KeepaliveClock } from './clock.ts'
import type { KeepalivePing, KeepaliveSaved } from './events.ts'
import { decidePing, pingDue, rewriteSaving, warmAfter, type Rates, type WarmPrefix } from './rule.ts'

declare module 'cordis' {
  interface Events {
    /** Emitted (sync) after each `keepalive/ping` the keepalive logged for `agent`. */
    'keepalive/ping'(agent: Agent, ping: KeepalivePing): void
  }
}

/** Share of the compaction threshold from which a session about to go cold is compacted instead of pinged. */
export const WARM_COMPACTION_SHARE = 0.9

/** One agent waiting with a warm prefix: the request a ping repeats, and the state of this wait. */
interface Waiting {
  agent: Agent
  request: Readonly<GenerateOptions>
  turn: number
  step: number
  requestAt: number
  refreshedAt: number
  warm: WarmPrefix
  pings: number
  timer?: unknown
  controller?: AbortController
}

type Llm = Context['llm']

/**
 * The keepalive of the agents of one loop. Armed at each response of a model whose entry turns it on, it
 * waits until a tenth of the lifetime is left, then asks `decidePing` whether to repeat the last request with
 * `max_tokens` 1, and does so while the answer is yes. Any newer request of the agent ends the wait.
 */
export class Keepalive {
  private clock: KeepaliveClock = realClock
  private readonly waiting = new Map<string, Waiting>()
  private readonly sent = new WeakMap<object, number>()
  /** USD spent on pings, per session id (read back from the log the first time a session is armed). */
  private readonly spent = new Map<string, number>()

  constructor(
    private readonly llm: Llm,
    private readonly emit: Context['emit'],
    private readonly logger: ReturnType<Context['logger']>,
  ) {}

  /** Reads the time and sets timers on `clock` from now on (a virtual clock in benches and tests). */
  useClock(clock: KeepaliveClock): void {
    this.clock = clock
  }

  /** Notes when a request went out (the `llm/request` event): a lifetime starts when its request is served. */
  dispatched(options: GenerateOptions): void {
    this.sent.set(options, this.clock.now())
  }

  /** Follows an agent's updates: each response arms the keepalive, a compaction ends the wait. */
  observe(agent: Agent, update: AgentUpdate): void {
    if (update.type === 'usage') this.arm(agent, update.turn, update.step, update.usage)
    else if (update.type === 'compaction' && !update.error) this.disarm(agent.id)
  }

  /** Ends the wait of `agentId`, aborting a ping in flight. */
  disarm(agentId: string): void {
    const waiting = this.waiting.get(agentId)
    if (!waiting) return
    this.waiting.delete(agentId)
    if (waiting.timer !== undefined) this.clock.clearTimeout(waiting.timer)
    waiting.controller?.abort()
  }

  dispose(): void {
    for (const id of [...this.waiting.keys()]) this.disarm(id)
  }

  private arm(agent: Agent, turn: number, step: number, usage: Usage): void {
    const previous = this.waiting.get(agent.id)
    this.disarm(agent.id)
    const request = agent.lastRequest
    if (!request || !this.policy(request.model)?.keepalive) return
    const requestAt = this.sent.get(request) ?? this.clock.now()
    if (previous && previous.pings > 0) this.settle(agent, previous, { turn, step }, requestAt, usage)
    const waiting: Waiting = { agent, request, turn, step, requestAt, refreshedAt: requestAt, warm: warmAfter(usage), pings: 0 }
    this.waiting.set(agent.id, waiting)
    this.schedule(waiting)
  }

  private schedule(waiting: Waiting): void {
    const ttlMs = this.ttlMs(waiting.request.model)
    if (ttlMs === undefined) return
    const delay = Math.max(0, pingDue(waiting.refreshedAt, ttlMs) - this.clock.now())
    waiting.timer = this.clock.setTimeout(() => this.due(waiting).catch((error) => {
      this.logger.warn(`keepalive of agent ${waiting.agent.id} failed: ${messageOf(error)}`)
    }), delay)
  }

  private current(waiting: Waiting): boolean {
    return this.waiting.get(waiting.agent.id) === waiting && waiting.agent.lastRequest === waiting.request
  }

  private async due(waiting: Waiting): Promise<void> {
    waiting.timer = undefined
    if (!this.current(waiting)) return
    const { agent, request } = waiting
    const policy = this.policy(request.model)
    const settings = policy?.keepalive
    if (!policy || !settings || policy.ttl.seconds === undefined) return this.disarm(agent.id)
    const ttlMs = policy.ttl.seconds * 1000
    const now = this.clock.now()
    const session = agent.session
    const answer = decidePing({
      now, requestAt: waiting.requestAt, refreshedAt: waiting.refreshedAt, ttlMs, ttlName: policy.ttl.name,
      idleLimitMs: settings.idleLimitMs, pings: waiting.pings, spent: this.spentBy(agent), maxSpend: settings.maxSpend,
      warm: waiting.warm, minimumTokens: policy.minimumTokens, rates: this.rates(request.model),
    })
    const base = { turn: waiting.turn, step: waiting.step, idleMs: Math.max(0, now - waiting.requestAt), ttlMs }
    if (!answer.ping) {
      this.logger.debug('keepalive of agent %s stops: %s', agent.id, answer.why)
      return this.disarm(agent.id)
    }
    if (settings.compactWhenWarm && agent.status === 'idle' && this.nearThreshold(agent, request.model)) {
      this.disarm(agent.id)
      const outcome = await agent.compact({ reason: 'auto' })
      if (outcome.ok) this.log(agent, { ...base, compacted: true })
      return
    }
    const controller = waiting.controller = new AbortController()
    const options: GenerateOptions = { ...request, maxTokens: 1, signal: controller.signal }
    let usage: Usage | undefined
    try {
      usage = (await collect(this.llm.stream(options))).usage
    } catch (error) {
      if (!this.current(waiting)) return
      this.log(agent, { ...base, error: messageOf(error) })
      return this.disarm(agent.id)
    } finally {
      waiting.controller = undefined
    }
    if (session !== agent.session) return
    // the cost record is dsh-llm's (`llm.cost`), as for every other request
    const cost = (usage && this.llm.cost(request.model, usage)?.billed) ?? answer.cost
    this.spent.set(session.id, this.spentBy(agent) + cost)
    // billed even when the session sent a request of its own meanwhile: logged, but that request leads from here
    this.log(agent, { ...base, ...usage && { usage: plainUsage(usage) }, cost, saving: answer.saving })
    if (!this.current(waiting)) return
    // a ping that read nothing found the prefix gone (evicted): pinging again would pay writes
    if (!usage || usage.cacheReadTokens === 0) return this.disarm(agent.id)
    waiting.pings++
    waiting.refreshedAt = this.sent.get(options) ?? now
    waiting.warm = warmAfter(usage)
    this.schedule(waiting)
  }

  /**
   * The wait `previous` ended with a request at `requestAt`: when that came after the lifetime would have ended
   * without its pings and read the kept prefix, `keepalive/saved` says what the pings saved.
   */
  private settle(agent: Agent, previous: Waiting, at: { turn: number; step: number }, requestAt: number, usage: Usage): void {
    const ttlMs = this.ttlMs(previous.request.model)
    const waitMs = requestAt - previous.requestAt
    const readTokens = Math.min(usage.cacheReadTokens, previous.warm.readTokens)
    if (ttlMs === undefined || waitMs <= ttlMs || readTokens === 0) return
    const rates = this.rates(previous.request.model)
    const ttlName = this.policy(previous.request.model)?.ttl.name ?? ''
    const saved: KeepaliveSaved = {
      ...at, pings: previous.pings, waitMs, ttlMs, readTokens,
      ...rates && { saving: rewriteSaving({ readTokens, uncachedTokens: 0 }, rates, ttlName) },
    }
    agent.session.append('keepalive/saved', saved)
  }

  private log(agent: Agent, ping: KeepalivePing): void {
    agent.session.append('keepalive/ping', ping)
    try {
      this.emit('keepalive/ping', agent, ping)
    } catch (error) {
      this.logger.warn(`a keepalive/ping listener threw: ${messageOf(error)}`)
    }
  }

  /** The next request would pass `WARM_COMPACTION_SHARE` of the agent's compaction threshold. */
  private nearThreshold(agent: Agent, model: string): boolean {
    const window = this.llm.contextWindow(model)
    const next = nextRequest(agent.session)
    if (window === undefined || !next) return false
    return estimateFill(agent.session, next) >= WARM_COMPACTION_SHARE * agent.settings.compactAt * window
  }

  private spentBy(agent: Agent): number {
    const id = agent.session.id
    let spent = this.spent.get(id)
    if (spent === undefined) {
      spent = 0
      for (const event of agent.session.events()) if (event.type === 'keepalive/ping') spent += event.data.cost ?? 0
      this.spent.set(id, spent)
    }
    return spent
  }

  private policy(model: string) {
    try {
      return this.llm.cachePolicy(model)
    } catch {
      return undefined
    }
  }

  private ttlMs(model: string): number | undefined {
    const seconds = this.policy(model)?.ttl.seconds
    return seconds === undefined ? undefined : seconds * 1000
  }

  private rates(model: string): Rates | undefined {
    return this.llm.price(model)
  }
}

function plainUsage({ inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens }: Usage) {
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens }
}
