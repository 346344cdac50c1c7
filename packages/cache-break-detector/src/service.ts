import { MAX_TIMER_MS, quote, deepFreeze, rawService, type ConfigInput } from 'dsh-core'
import { Context, Service } from 'cordis'
import Schema from 'schemastery'
import type { Agent, AgentUpdate } from 'dsh-agent-loop'
import { type GenerateOptions, type ToolUpdateMode } from 'dsh-llm'
import './session-event.ts'
import { costRecord } from './cost-event.ts'
import type {} from 'dsh-session'
import { renderSections } from 'dsh-system-prompt/bytes'
import type {} from 'dsh-system-prompt' // ctx.systemPrompt and its events
import { PROVIDER_REASONS, agreementOf, bothSides } from './agreement.ts'
import { ColdWatch, type ColdCache } from './cold.ts'
import { explainBreak, type RuledObservation } from './explain.ts'
import { fingerprint } from './fingerprint.ts'
import { layoutOf } from './layout.ts'
import { routeCaching, type RouteCaching } from './route-caching.ts'
import { SectionIndex } from './sections.ts'
import { DEFAULT_THRESHOLDS, isDropRatio, resolveThresholds } from './thresholds.ts'
import type { DropThresholds, PromptCacheBreak, ProviderView, RequestFingerprint } from './types.ts'

declare module 'cordis' {
  interface Context {
    promptCache: PromptCache
  }
  interface Events {
    /** Emitted (sync) when an agent's cache reads fell past the thresholds; the same data is logged to its session. */
    'prompt-cache/break'(agent: Agent, info: PromptCacheBreak): void
    /** Emitted (sync) when an idle agent's last request is older than its model's cache TTL: the next turn starts cold. */
    'prompt-cache/cold'(agent: Agent, info: ColdCache): void
  }
}

export interface PromptCacheConfig {
  enabled: boolean
  minDropRatio: number
  minDropTokens: number
  coldNotice: boolean
  ttlMs?: number
}

type UsageUpdate = Extract<AgentUpdate, { type: 'usage' }>

/** The break's provider side from the verdict the route sent with the response. */
function providerView(verdict: NonNullable<UsageUpdate['verdict']>): ProviderView {
  const { reason, missedTokens, pending, responseId } = verdict
  return { ...reason !== undefined && { reason }, ...missedTokens !== undefined && { missedTokens }, ...pending && { pending }, responseId }
}

/** An agent's last observed request and the breaks found so far in this process. */
interface AgentRecord {
  last?: RuledObservation
  breaks: PromptCacheBreak[]
}

interface Dispatch {
  fingerprint: RequestFingerprint
  at: number
}

// A frozen fingerprint (an unchanged header) gives the same hash list, so layouts compare it by identity.
const hashLists = new WeakMap<RequestFingerprint, readonly string[]>()
function toolHashesOf(print: RequestFingerprint): readonly string[] {
  let hashes = hashLists.get(print)
  if (!hashes) hashLists.set(print, hashes = print.tools.map((tool) => tool.hash))
  return hashes
}

const dropRatio = Schema.transform(Schema.number(), (value) => {
  if (isDropRatio(value)) return value
  throw new Schema.ValidationError(`expected a number greater than 0 and at most 1 but got ${quote(value)}`, { path: ['minDropRatio'] })
})

// absent stays absent; anything else must be a positive number of milliseconds a Node timer can wait
const optionalMs = Schema.transform(Schema.any(), (value): number | undefined => {
  if (value === undefined || (typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMER_MS)) return value
  throw new Schema.ValidationError(`expected a number of milliseconds greater than 0 and at most ${MAX_TIMER_MS} but got ${quote(value)}`, { path: ['ttlMs'] })
})

/**
 * Watches every agent request and response and reports prompt-cache breaks: a fall in cache-read tokens
 * against the agent's previous step, with the earliest change in the cached prefix that explains it.
 * Observe-only: it never changes a request (ctx key `promptCache`).
 */
export class PromptCache extends Service {
  static inject = ['llm']
  /** Anthropic's `cache_miss_reason` types and the DSH reasons each corresponds to (the agreement's one table). */
  static readonly PROVIDER_REASONS = PROVIDER_REASONS

  static Config: Schema<ConfigInput<PromptCacheConfig>, PromptCacheConfig> = Schema.object({
    enabled: Schema.boolean().default(true).description('Watch requests and report breaks; false registers no listeners.'),
    minDropRatio: dropRatio.default(DEFAULT_THRESHOLDS.minDropRatio)
      .description('Least fall in cache reads, as a fraction of the previous read (0 < x ≤ 1), for a break.'),
    minDropTokens: Schema.natural().default(DEFAULT_THRESHOLDS.minDropTokens)
      .description('Least fall in cache reads, in tokens, for a break.'),
    coldNotice: Schema.boolean().default(true)
      .description('Emit prompt-cache/cold when an idle agent passes its model\'s cache TTL (front doors show it).'),
    ttlMs: optionalMs
      .description('Cache TTL in ms to assume for every model, instead of its profile\'s (a self-hosted server whose eviction time you know).'),
  })

  private readonly sections = new SectionIndex()
  private readonly dispatched = new WeakMap<GenerateOptions, Dispatch>()
  private readonly agents = new Map<string, AgentRecord>()
  // Resolved once from the service's own context: each property read through a Cordis context builds proxies.
  private readonly notify: Context['emit']
  private readonly logger: ReturnType<Context['logger']>
  private readonly llm: Context['llm']
  private readonly thresholds: DropThresholds
  private readonly cold: ColdWatch

  constructor(ctx: Context, public readonly config: PromptCacheConfig) {
    // Checked before super() so a bad config never leaves a half-built service registered as ctx.promptCache.
    const thresholds = resolveThresholds(config)
    super(ctx, 'promptCache')
    this.thresholds = thresholds
    this.notify = ctx.emit
    this.logger = ctx.logger('prompt-cache')
    this.llm = rawService(ctx.llm)
    this.cold = new ColdWatch((agent, info) => {
      this.logger.debug('prompt cache of agent %s is cold: idle %d ms, past the %d ms TTL of %s', agent.id, info.idleMs, info.ttlMs, info.model)
      this.guard(() => this.notify('prompt-cache/cold', agent, info), 'a prompt-cache/cold listener threw')
    })
    ctx.effect(() => () => this.cold.dispose(), 'promptCache: cold-cache timers')
    // a keepalive ping that read the prefix refreshed it: the cache is not cold a lifetime after the last request
    ctx.on('keepalive/ping', (agent, ping) => {
      if (ping.usage && ping.usage.cacheReadTokens > 0) this.cold.refreshed(agent, Date.now())
    })
    if (config.enabled === false) return

    // Outermost listener: it sees the assembly every other listener produced, and hands it on untouched.
    ctx.on('system-prompt/assemble', async (assembly, _context, next) => {
      const result = await next()
      this.guard(() => this.sections.remember(renderSections(result ?? assembly)))
      return result
    }, { prepend: true })
    ctx.on('llm/request', (options) => this.guard(() => {
      this.dispatched.set(options, { fingerprint: this.take(options), at: Date.now() })
    }))
    ctx.on('agent/update', (agent, update) => {
      if (update.type === 'usage') this.guard(() => this.observe(agent, update))
      // A compaction replaces the history on purpose: the fall in cache reads after it is not a break.
      else if (update.type === 'compaction' && !update.error) {
        const record = this.agents.get(agent.id)
        if (record) record.last = undefined
      }
    })
  }

  /** The fingerprint of `options`, with section spans when the prompt was assembled while this plugin ran. */
  fingerprint(options: GenerateOptions): RequestFingerprint {
    return this.take(options)
  }

  /** The breaks found for agent `agentId` since this plugin started, oldest first. */
  breaks(agentId: string): readonly PromptCacheBreak[] {
    return [...this.agents.get(agentId)?.breaks ?? []]
  }

  /** How the route of `model` caches: its rules and where its planner puts markers (none when unknown). */
  caching(model: string): RouteCaching {
    return routeCaching(this.llm, model)
  }

  private take(options: GenerateOptions): RequestFingerprint {
    return fingerprint(options, { sections: this.sections.lookup(options.system), toolUpdateMode: this.modeOf(options.model) })
  }

  private modeOf(model: string): ToolUpdateMode | undefined {
    try {
      return this.llm.toolUpdateMode(model)
    } catch {
      return undefined
    }
  }

  private observe(agent: Agent, { turn, step, usage, verdict }: UsageUpdate) {
    const options = agent.lastRequest
    if (!options) return
    const dispatch = this.dispatched.get(options as GenerateOptions)
    const print = dispatch?.fingerprint ?? this.take(options as GenerateOptions)
    const caching = this.caching(options.model)
    let record = this.agents.get(agent.id)
    if (!record) this.agents.set(agent.id, record = { breaks: [] })
    const previous = record.last
    const flags = `${print.deferredTools.join(',')}|${print.toolUpdateMode ?? ''}`
    const marks = caching.marks?.(options as GenerateOptions)
    const current: RuledObservation = {
      fingerprint: print,
      usage,
      system: options.system,
      layout: layoutOf(options, toolHashesOf(print), flags, marks, previous?.layout),
      ...(dispatch ? { at: dispatch.at } : {}),
    }
    record.last = current
    const ttlMs = this.config.ttlMs ?? caching.rules?.ttlMs
    if (this.config.coldNotice !== false && ttlMs !== undefined) {
      const profile = this.config.ttlMs === undefined ? caching.rules?.profile : undefined
      this.cold.arm(agent, { model: options.model, ...(profile ? { profile } : {}), ttlMs, promptTokens: usage.inputTokens }, dispatch?.at ?? Date.now())
    }
    if (!previous) return this.logCost(agent, options.model, usage, { turn, step })
    const found = explainBreak(previous, current, { ...(caching.rules ? { rules: caching.rules } : {}), thresholds: this.thresholds })
    if (!found) return this.logCost(agent, options.model, usage, { turn, step })

    // the provider's verdict on the same request, beside DSH's (routes that ask for one: Anthropic's cache diagnostics)
    const provider = verdict && providerView(verdict)
    const agreement = agreementOf(found, provider)
    const info = deepFreeze<PromptCacheBreak>({ turn, step, ...found, ...provider && { provider }, ...agreement && { agreement } })
    record.breaks.push(info)
    this.logger.info('prompt cache break in agent %s, turn %d step %d: %s; cache reads %d → %d%s',
      agent.id, turn, step, found.allReasons.join(', '), found.previousCacheReadTokens, found.currentCacheReadTokens, agreement ? ` (provider: ${agreement})` : '')
    if (provider && (agreement === 'disagree' || agreement === 'provider-only')) {
      const what = agreement === 'disagree' ? 'DSH and the provider disagree' : 'only the provider names a cause'
      this.logger.warn(`prompt cache break in agent ${agent.id}, turn ${turn} step ${step}: ${what}: ${bothSides(found, provider)}`)
    }
    this.guard(() => agent.session.append('prompt-cache/break', info))
    this.guard(() => this.notify('prompt-cache/break', agent, info), 'a prompt-cache/break listener threw')
    this.logCost(agent, options.model, usage, info)
  }

  /** Logs `request/cost` for a response of a priced model, after the break it prices when there was one. */
  private logCost(agent: Agent, model: string, usage: UsageUpdate['usage'], at: { turn: number; step: number } | PromptCacheBreak) {
    this.guard(() => {
      const cost = costRecord(this.llm, model, { turn: at.turn, step: at.step }, usage, 'reason' in at ? at : undefined)
      if (cost) agent.session.append('request/cost', cost)
    }, 'request/cost was not logged')
  }

  // An observer must never fail the request or the turn it watches.
  private guard(work: () => void, what = 'prompt-cache observation failed') {
    try {
      work()
    } catch (error) {
      this.logger.warn(`${what}: ${error instanceof Error ? error.message : quote(error)}`)
    }
  }
}

export default PromptCache
