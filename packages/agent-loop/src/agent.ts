import type { Context } from 'cordis'
import { messageOf, rawService, type ToolCall, type Usage } from 'dsh-core'
import { LlmError, type GenerateOptions } from 'dsh-llm'
import type { CompactionReason, HeaderReason, RequestHeader, Session } from 'dsh-session'
import { joinContextSections, renderContextSections, renderPrompt } from 'dsh-system-prompt'
import { CompactionCancelled, compact, type CompactionOutcome } from './compaction.ts'
import { AgentLoopError } from './errors.ts'
import { estimateFill } from './fill.ts'
import { HeaderMemo, diffToolNames } from './header.ts'
import { mapWithLimit } from './limit.ts'
import { ContextSnapshots } from './runtime-context.ts'
import type { AgentStatus, AgentUpdate, PromptOptions, TurnResult } from './types.ts'

export interface AgentSettings {
  model: string
  cwd: string
  maxSteps: number
  toolConcurrency: number
  /** Share of the model's context window at which the loop compacts before a step. */
  compactAt: number
  /** Time limit of one compaction request, in milliseconds. */
  compactionTimeoutMs: number
}

class Cancelled extends Error {}

/** One conversation: a session, a model and a status. `prompt()` runs one turn at a time. */
export class Agent {
  status: AgentStatus = 'idle'
  /** The last request handed to the model, exactly as dispatched (deep-frozen). */
  lastRequest: Readonly<GenerateOptions> | undefined
  private turns: number
  private headersThisProcess = 0
  /** Set by `switchModel()` until the next header is logged, whose reason it then is. */
  private modelSwitched = false
  private controller: AbortController | undefined
  private running: Promise<void> | undefined
  private readonly headers = new HeaderMemo()
  private readonly snapshots: ContextSnapshots

  /**
   * The loop's services, resolved once (the agent lives and dies with the loop that injected them) and
   * unwrapped: Cordis's tracing proxies exist to tie effects to the calling plugin, the calls below create
   * none, and each proxied call costs microseconds on every step.
   */
  private readonly systemPrompt: Context['systemPrompt']
  private readonly llm: Context['llm']
  private readonly tools: Context['tools']
  private readonly emit: Context['emit']
  private readonly logger: ReturnType<Context['logger']>

  /**
   * The agent's own Cordis context, a child of the loop's: `agent.ctx.systemPrompt.section(…)` and the other
   * registrations, and `agent.ctx.on('system-prompt/assemble', …)`, apply to this agent's assemblies alone
   * and are removed when the agent is removed or the loop is disposed.
   */
  readonly ctx: Context

  constructor(ctx: Context, own: Context, readonly id: string, readonly session: Session, readonly settings: AgentSettings) {
    this.ctx = own
    this.systemPrompt = rawService(ctx.systemPrompt)
    this.llm = rawService(ctx.llm)
    this.tools = rawService(ctx.tools)
    this.emit = ctx.emit
    this.logger = ctx.logger('agent-loop')
    this.snapshots = new ContextSnapshots(session)
    this.turns = session.events().filter((event) => event.type === 'turn/start').length
    this.closeInterruptedTurn()
  }

  /**
   * A log that ends inside a turn (the process stopped mid-turn) is closed before anything new is logged:
   * a result for each call still waiting for one (providers refuse a tool call without its result), the
   * open step's end and the turn's end, so the log stays balanced and the next turn is well-formed.
   */
  private closeInterruptedTurn(): void {
    const events = this.session.events()
    const start = events.findLastIndex((event) => event.type === 'turn/start')
    if (start < 0 || events.slice(start).some((event) => event.type === 'turn/end')) return
    const { turn } = events[start]!.data as { turn: number }
    const message = 'the turn was interrupted before it ended (the process stopped)'
    let openStep = 0
    const waiting = new Map<string, { step: number; name: string }>()
    for (const event of events.slice(start)) {
      const data = event.data as { step: number; id: string; name: string }
      if (event.type === 'step/start') openStep = data.step
      else if (event.type === 'step/end') openStep = 0
      else if (event.type === 'tool/call') waiting.set(data.id, { step: data.step, name: data.name })
      else if (event.type === 'tool/result') waiting.delete(data.id)
    }
    for (const [id, { step, name }] of waiting) {
      this.session.append('tool/result', { turn, step, id, name, output: `tool ${JSON.stringify(name)} did not return: ${message}`, isError: true })
    }
    if (openStep) this.session.append('step/end', { turn, step: openStep })
    this.session.append('turn/end', { turn, reason: 'error', error: { message } })
  }

  get model(): string {
    return this.settings.model
  }

  /**
   * Switches the model of the next requests (the REPL's `/model`): checked against the served models, logged
   * as `model/switch`, and the next request header is logged with reason `model`. Refused while a turn runs.
   */
  switchModel(model: string): void {
    if (this.status === 'running') throw new AgentLoopError('BUSY', `agent "${this.id}" is running a turn; switch the model after it ends`)
    this.llm.resolve(model)
    if (model === this.settings.model) return
    this.session.append('model/switch', { turn: this.turns, from: this.settings.model, to: model })
    this.settings.model = model
    // switched back to the model of the last logged header: that header still holds, nothing to explain
    this.modelSwitched = this.session.requestHeader()?.data.header.model !== model
  }

  /** Aborts the running turn, if any; it ends with reason `cancelled`. */
  cancel(): void {
    this.controller?.abort()
  }

  /**
   * Compacts the session now (`/compact`): the summary replaces every message logged so far. Resolves
   * with the outcome, a failure included (nothing is logged then); rejects only when a turn is running.
   */
  compact(options: { signal?: AbortSignal } = {}): Promise<CompactionOutcome> {
    if (this.status === 'running') return Promise.reject(new AgentLoopError('BUSY', `agent "${this.id}" is running a turn; compact after it ends`))
    const { signal, end } = this.begin(options.signal)
    const running = (async (): Promise<CompactionOutcome> => {
      try {
        await this.session.flushed()
        const outcome = await this.runCompaction(this.turns, 0, 'manual', this.session.lastSeq, signal)
        await this.session.flushed()
        return outcome
      } catch (error) {
        return { ok: false, error: error instanceof CompactionCancelled ? 'the compaction was cancelled' : messageOf(error) }
      } finally {
        end()
      }
    })()
    this.running = running.then(() => {}, () => {})
    return running
  }

  /** Runs one turn. Resolves with how it ended; rejects only when the agent is already running. */
  prompt(text: string, options: PromptOptions = {}): Promise<TurnResult> {
    if (typeof text !== 'string') return Promise.reject(new AgentLoopError('INVALID_PROMPT', `a prompt must be a string, got ${typeof text}`))
    if (this.status === 'running') return Promise.reject(new AgentLoopError('BUSY', `agent "${this.id}" is already running a turn; cancel it or wait`))
    const running = this.run(text, options)
    this.running = running.then(() => {}, () => {})
    return running
  }

  /** Resolves once no turn is running (at once when idle); never rejects. */
  async idle(): Promise<void> {
    await this.running
  }

  /**
   * Marks the agent running with a fresh controller that the caller's signal also aborts; `end()` detaches
   * that signal and returns the agent to idle.
   */
  private begin(outer: AbortSignal | undefined): { signal: AbortSignal; end: () => void } {
    this.status = 'running'
    const controller = new AbortController()
    this.controller = controller
    const forward = () => controller.abort()
    outer?.addEventListener('abort', forward, { once: true })
    if (outer?.aborted) controller.abort()
    return {
      signal: controller.signal,
      end: () => {
        outer?.removeEventListener('abort', forward)
        this.controller = undefined
        this.status = 'idle'
      },
    }
  }

  private async run(text: string, options: PromptOptions): Promise<TurnResult> {
    const { signal, end } = this.begin(options.signal)
    try {
      return await this.runTurn(text, signal, options.onUpdate)
    } finally {
      end()
    }
  }

  private async runTurn(text: string, signal: AbortSignal, onUpdate: PromptOptions['onUpdate']): Promise<TurnResult> {
    const turn = ++this.turns
    // Observers watch a turn; one that throws is logged and the turn goes on, so the log stays balanced.
    const notify = (update: AgentUpdate) => {
      try {
        onUpdate?.(update)
        this.emit('agent/update', this, update)
      } catch (error) {
        this.logger.warn(`an agent update observer threw on ${update.type}: ${messageOf(error)}`)
      }
    }
    const result: TurnResult = { turn, reason: 'done', text: '', toolCalls: [] }
    let openStep = 0
    try {
      await this.session.flushed()
      this.session.append('turn/start', { turn })
      const asked = this.session.append('user/message', { turn, text })
      for (let step = 1; ; step++) {
        if (signal.aborted) throw new Cancelled()
        if (step > this.settings.maxSteps) {
          result.reason = 'step_limit'
          result.error = `the turn reached the step limit of ${this.settings.maxSteps} without a final answer`
          break
        }
        const assembly = await this.systemPrompt.assemble({ scope: this.id, signal, model: this.model, cwd: this.settings.cwd, agentId: this.id })
        const header = this.assembledHeader(renderPrompt(assembly), assembly.tools)
        const contexts = assembly.contexts.length ? renderContextSections(assembly) : []
        this.llm.resolve(this.model)
        // A cancel that landed during assembly opens no step: nothing would be sent for it.
        if (signal.aborted) throw new Cancelled()
        this.session.append('step/start', { turn, step })
        openStep = step
        // Before a changed header is logged: the compaction request then rides the prefix the provider holds.
        // The first step keeps the user's new message verbatim after the summary; later ones compact it too.
        await this.fitContext(turn, step, header, step === 1 ? asked.seq - 1 : this.session.lastSeq, signal, notify)
        this.logHeader(turn, step, header, notify)
        // after the header, in the history: a changing runtime context never moves the cached prefix
        this.snapshots.update(turn, step, joinContextSections(contexts), contexts)
        const response = await this.callModel(signal, (delta) => notify({ type: 'text', turn, step, delta }))
        this.session.append('assistant/message', {
          turn, step, text: response.text, toolCalls: response.toolCalls, ...(response.usage ? { usage: response.usage } : {}),
        })
        if (response.usage) notify({ type: 'usage', turn, step, usage: response.usage })
        result.text = response.text
        result.toolCalls = response.toolCalls
        if (response.toolCalls.length === 0) {
          this.session.append('step/end', { turn, step })
          openStep = 0
          break
        }
        await this.runTools(turn, step, response.toolCalls, signal, notify)
        this.session.append('step/end', { turn, step })
        openStep = 0
      }
    } catch (error) {
      const cancelled = error instanceof Cancelled || error instanceof CompactionCancelled || signal.aborted
      result.reason = cancelled ? 'cancelled' : 'error'
      result.error = cancelled ? 'the turn was cancelled' : messageOf(error)
    }
    try {
      if (openStep) this.session.append('step/end', { turn, step: openStep })
      this.session.append('turn/end', { turn, reason: result.reason, ...(result.reason === 'done' ? {} : { error: { message: result.error! } }) })
      await this.session.flushed()
    } catch (error) {
      // The log refused a write (its file is gone, the disk is full): the turn is not on disk, and that is
      // the failure the caller must hear about, as a result like any other, not as a rejection.
      result.reason = 'error'
      result.error = messageOf(error)
    }
    if (result.reason === 'error' || result.reason === 'step_limit') {
      this.emit('agent/error', this, { turn, message: result.error! })
    }
    notify({ type: 'turn-end', turn, reason: result.reason, ...(result.error ? { error: result.error } : {}) })
    return result
  }

  /** Logs the header when its bytes differ from the last logged one, and a tool-registry message when names changed. */
  private logHeader(turn: number, step: number, header: RequestHeader, notify: (update: AgentUpdate) => void) {
    const previous = this.session.requestHeader()?.data.header
    if (this.headers.same(previous, header)) return
    const reason: HeaderReason = !previous ? 'initial' : this.modelSwitched ? 'model'
      : this.session.resumed && this.headersThisProcess === 0 ? 'resume' : 'change'
    const logged = this.session.append('request/header', { turn, step, reason, header })
    this.modelSwitched = false
    this.headersThisProcess++
    this.headers.remember(logged.data.header, header)
    if (!previous) return
    const { added, removed } = diffToolNames(previous, header)
    if (added.length === 0 && removed.length === 0) return
    this.session.append('developer/message', { turn, step, source: 'tool-registry', added, removed, headerSeq: logged.seq })
    notify({ type: 'tools-changed', turn, step, added, removed })
  }

  /**
   * Compacts before the step when the request about to go (with `header`, the step's assembled one)
   * passes `compactAt` of the model's window. The compaction request carries the last logged header: the
   * step's own when it is unchanged, else the one the provider has cached. A failed compaction lets the
   * step go on while the request still fits; otherwise the turn fails with one line, and the next turn
   * tries again.
   */
  private async fitContext(turn: number, step: number, header: RequestHeader, throughSeq: number, signal: AbortSignal,
    notify: (update: AgentUpdate) => void) {
    const request = this.nextRequest()
    if (!request) return
    const window = this.llm.contextWindow(header.model)
    if (window === undefined) return
    const logged = this.session.requestHeader()!.data.header
    const changed = !this.headers.same(logged, header)
    // The logged tool list is measured once per header; an assembled one only when it is about to replace it.
    const fill = estimateFill(this.session, { ...changed ? header : logged, messages: request.messages }, changed)
    if (fill < this.settings.compactAt * window) return
    const outcome = await this.runCompaction(turn, step, 'auto', throughSeq, signal, notify)
    if (outcome.ok) return
    if (fill > window) {
      throw new AgentLoopError('CONTEXT_FULL', `the next request needs about ${fill} tokens, more than the ${window}-token context window `
        + `of "${header.model}", and compaction failed: ${outcome.error}`)
    }
    this.logger.warn(`compaction at ${fill} of ${window} tokens failed, the step goes on: ${outcome.error}`)
  }

  /** One compaction of the history through `throughSeq`, announced to observers either way. */
  private async runCompaction(turn: number, step: number, reason: CompactionReason, throughSeq: number, signal: AbortSignal,
    notify: (update: AgentUpdate) => void = (update) => this.emit('agent/update', this, update)): Promise<CompactionOutcome> {
    const request = this.nextRequest()
    const outcome: CompactionOutcome = !request ? { ok: false, error: 'nothing to compact: no request was made yet' }
      : !this.hasHistoryThrough(throughSeq) ? { ok: false, error: 'nothing to compact: no message since the last compaction' }
      : await compact({ session: this.session, llm: this.llm, request, throughSeq, turn, step, reason, signal, timeoutMs: this.settings.compactionTimeoutMs })
    if (outcome.ok) this.snapshots.forget()
    notify(outcome.ok
      ? { type: 'compaction', turn, step, reason, throughSeq, ...outcome.usage && { usage: outcome.usage } }
      : { type: 'compaction', turn, step, reason, error: outcome.error })
    return outcome
  }

  /** True when a message was logged after the last compaction and at or before `throughSeq`. */
  private hasHistoryThrough(throughSeq: number): boolean {
    for (let seq = Math.min(throughSeq, this.session.lastSeq); seq >= 1; seq--) {
      const type = this.session.event(seq)!.type
      if (type === 'context/compaction') return false
      if (type === 'user/message' || type === 'assistant/message' || type === 'tool/result') return true
    }
    return false
  }

  /**
   * The header of this step. The deferred-tool set comes from the live registry and decides
   * `defer_loading` on the wire, so it is part of the header (in tool order, present only when non-empty):
   * a change of it logs a new header, and the log alone rebuilds the dispatched request.
   */
  private assembledHeader(system: string, tools: RequestHeader['tools']): RequestHeader {
    const registered = this.tools.deferredNames()
    const deferred = registered.length ? tools.map((tool) => tool.name).filter((name) => registered.includes(name)) : []
    return { model: this.model, system, tools, ...(deferred.length ? { deferredTools: deferred } : {}) }
  }

  /** The request the loop would dispatch now: the logged header and the logged history; none before a header. */
  private nextRequest(): Omit<GenerateOptions, 'signal'> | undefined {
    const logged = this.session.requestHeader()?.data.header
    if (!logged) return undefined
    return {
      model: logged.model,
      system: logged.system,
      tools: logged.tools,
      messages: this.session.messages(),
      toolHistory: this.session.toolHistory(),
      ...(logged.deferredTools?.length ? { deferredTools: logged.deferredTools } : {}),
    }
  }

  /** Dispatches exactly the logged header and the logged history, deep-frozen, and collects the answer. */
  private async callModel(signal: AbortSignal, onText: (delta: string) => void) {
    const request: GenerateOptions = { ...this.nextRequest()!, signal }
    this.lastRequest = request
    let text = ''
    const toolCalls: ToolCall[] = []
    let usage: Usage | undefined
    try {
      for await (const event of this.llm.stream(request)) {
        if (event.type === 'text') { text += event.delta; onText(event.delta) }
        else if (event.type === 'tool-call') toolCalls.push(event.call)
        else if (event.type === 'usage') usage = event.usage
      }
    } catch (error) {
      if (error instanceof LlmError && error.code === 'CANCELLED') throw new Cancelled()
      throw error
    }
    if (signal.aborted) throw new Cancelled()
    return { text, toolCalls, usage }
  }

  private async runTools(turn: number, step: number, calls: ToolCall[], signal: AbortSignal, notify: (update: AgentUpdate) => void) {
    for (const call of calls) {
      this.session.append('tool/call', { turn, step, id: call.id, name: call.name, arguments: call.arguments })
      notify({ type: 'tool-call', turn, step, id: call.id, name: call.name, arguments: call.arguments })
    }
    const results = await mapWithLimit(calls, this.settings.toolConcurrency, (call) => this.tools.execute(call.name, call.arguments, { signal, agentId: this.id }))
    calls.forEach((call, index) => {
      const { output, isError } = results[index]
      this.session.append('tool/result', { turn, step, id: call.id, name: call.name, output, isError })
      notify({ type: 'tool-result', turn, step, id: call.id, name: call.name, output, isError })
    })
    if (signal.aborted) throw new Cancelled()
  }
}
