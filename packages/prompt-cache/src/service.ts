import { quote, deepFreeze, rawService, type ConfigInput } from 'dsh-core'
import { Context, Service } from 'cordis'
import Schema from 'schemastery'
import type { Agent, AgentUpdate } from 'dsh-agent-loop'
import { type GenerateOptions, type ToolUpdateMode } from 'dsh-llm'
import type {} from 'dsh-session'
import { renderSections } from 'dsh-system-prompt'
import { classifyBreak } from './classify.ts'
import { fingerprint } from './fingerprint.ts'
import { SectionIndex } from './sections.ts'
import { DEFAULT_THRESHOLDS, isDropRatio, resolveThresholds } from './thresholds.ts'
import type { CacheObservation, DropThresholds, PromptCacheBreak, RequestFingerprint } from './types.ts'

declare module 'cordis' {
  interface Context {
    promptCache: PromptCache
  }
  interface Events {
    /** Emitted (sync) when an agent's cache reads fell past the thresholds; the same data is logged to its session. */
    'prompt-cache/break'(agent: Agent, info: PromptCacheBreak): void
  }
}

declare module 'dsh-session' {
  interface SessionEventMap {
    'prompt-cache/break': PromptCacheBreak
  }
}

export interface PromptCacheConfig {
  enabled: boolean
  minDropRatio: number
  minDropTokens: number
}

type UsageUpdate = Extract<AgentUpdate, { type: 'usage' }>

/** An agent's last observed request and the breaks found so far in this process. */
interface AgentRecord {
  last?: CacheObservation
  breaks: PromptCacheBreak[]
}

interface Dispatch {
  fingerprint: RequestFingerprint
  at: number
}

const dropRatio = Schema.transform(Schema.number(), (value) => {
  if (isDropRatio(value)) return value
  throw new Schema.ValidationError(`expected a number greater than 0 and at most 1 but got ${quote(value)}`, { path: ['minDropRatio'] })
})

/**
 * Watches every agent request and response and reports prompt-cache breaks: a fall in cache-read tokens
 * against the agent's previous step, with the earliest change in the cached prefix that explains it.
 * Observe-only: it never changes a request (ctx key `promptCache`).
 */
export class PromptCache extends Service {
  static inject = ['llm']

  static Config: Schema<ConfigInput<PromptCacheConfig>, PromptCacheConfig> = Schema.object({
    enabled: Schema.boolean().default(true).description('Watch requests and report breaks; false registers no listeners.'),
    minDropRatio: dropRatio.default(DEFAULT_THRESHOLDS.minDropRatio)
      .description('Least fall in cache reads, as a fraction of the previous read (0 < x ≤ 1), for a break.'),
    minDropTokens: Schema.natural().default(DEFAULT_THRESHOLDS.minDropTokens)
      .description('Least fall in cache reads, in tokens, for a break.'),
  })

  private readonly sections = new SectionIndex()
  private readonly dispatched = new WeakMap<GenerateOptions, Dispatch>()
  private readonly agents = new Map<string, AgentRecord>()
  // Resolved once from the service's own context: each property read through a Cordis context builds proxies.
  private readonly notify: Context['emit']
  private readonly logger: ReturnType<Context['logger']>
  private readonly llm: Context['llm']
  private readonly thresholds: DropThresholds

  constructor(ctx: Context, public readonly config: PromptCacheConfig) {
    // Checked before super() so a bad config never leaves a half-built service registered as ctx.promptCache.
    const thresholds = resolveThresholds(config)
    super(ctx, 'promptCache')
    this.thresholds = thresholds
    this.notify = ctx.emit
    this.logger = ctx.logger('prompt-cache')
    this.llm = rawService(ctx.llm)
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

  private observe(agent: Agent, { turn, step, usage }: UsageUpdate) {
    const options = agent.lastRequest
    if (!options) return
    const dispatch = this.dispatched.get(options as GenerateOptions)
    const current: CacheObservation = {
      fingerprint: dispatch?.fingerprint ?? this.take(options as GenerateOptions),
      usage,
      system: options.system,
      ...(dispatch ? { at: dispatch.at } : {}),
    }
    let record = this.agents.get(agent.id)
    if (!record) this.agents.set(agent.id, record = { breaks: [] })
    const previous = record.last
    record.last = current
    if (!previous) return
    const found = classifyBreak(previous, current, this.thresholds)
    if (!found) return

    const info = deepFreeze<PromptCacheBreak>({ turn, step, ...found })
    record.breaks.push(info)
    this.logger.info('prompt cache break in agent %s, turn %d step %d: %s; cache reads %d → %d',
      agent.id, turn, step, found.allReasons.join(', '), found.previousCacheReadTokens, found.currentCacheReadTokens)
    this.guard(() => agent.session.append('prompt-cache/break', info))
    this.guard(() => this.notify('prompt-cache/break', agent, info), 'a prompt-cache/break listener threw')
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
