import type { Context } from 'cordis'
import { messageOf, rawService, type ToolCall } from 'dsh-core'
import { LlmError, collect, type GenerateOptions, type LlmRoute } from 'dsh-llm'
import type { RequestHeader, Session } from 'dsh-session'
import { joinContextSections, renderContextSections, renderPrompt } from 'dsh-system-prompt/bytes'
import { CompactionCancelled, Compactor, type CompactionOutcome } from './compaction.ts'
import { UpdateDelivery } from './delivery.ts'
import { AgentLoopError } from './errors.ts'
import { HeaderLog } from './header.ts'
import { mapWithLimit } from './limit.ts'
import { PermissionGate } from './permission-gate.ts'
import { nextRequest } from './reconstruct.ts'
import { ContextSnapshots } from './runtime-context.ts'
import type { Turn } from './turn.ts'
import type { AgentSettings, AgentStatus, AgentUpdate, PromptOptions, TurnResult } from './types.ts'

class Cancelled extends Error {}

/** One conversation: a session, a model and a status. `prompt()` runs one turn at a time. */
export class Agent {
  status: AgentStatus = 'idle'
  /** The last request handed to the model, exactly as dispatched (deep-frozen). */
  lastRequest: Readonly<GenerateOptions> | undefined
  private turns = 0
  /** The last error a turn reported: a session failure it carried is not reported again on reopen. */
  private reported: string | undefined
  private controller: AbortController | undefined
  private running: Promise<void> | undefined
  /** Set by `close()`: the loop is being disposed, and no new turn starts. */
  private closed = false
  private current!: Session
  private headers!: HeaderLog
  private compactor!: Compactor
  private snapshots!: ContextSnapshots
  private permissions!: PermissionGate

  /**
   * The loop's services, resolved once (the agent lives and dies with the loop that injected them) and
   * unwrapped: Cordis's tracing proxies exist to tie effects to the calling plugin, the calls below create
   * none, and each proxied call costs microseconds on every step.
   */
  private readonly systemPrompt: Context['systemPrompt']
  private readonly llm: Context['llm']
  private readonly tools: Context['tools']
  private readonly sessions: Context['sessions']
  private readonly emit: Context['emit']
  private readonly logger: ReturnType<Context['logger']>

  /**
   * The agent's own Cordis context, a child of the loop's: `agent.ctx.systemPrompt.section(…)` and the other
   * registrations, and `agent.ctx.on('system-prompt/assemble', …)`, apply to this agent's assemblies alone
   * and are removed when the agent is removed or the loop is disposed.
   */
  readonly ctx: Context

  constructor(ctx: Context, own: Context, readonly id: string, session: Session, readonly settings: AgentSettings) {
    this.ctx = own
    this.systemPrompt = rawService(ctx.systemPrompt)
    this.llm = rawService(ctx.llm)
    this.tools = rawService(ctx.tools)
    this.sessions = rawService(ctx.sessions)
    this.emit = ctx.emit
    this.logger = ctx.logger('agent-loop')
    this.attach(session, 'the turn was interrupted before it ended (the process stopped)')
  }

  /** The agent's session: the one it was created with, or the one reopened after its store refused a write. */
  get session(): Session {
    return this.current
  }

  /** Binds the agent to `session`; a log that ends inside a turn is balanced before anything new is logged. */
  private attach(session: Session, interrupted: string): void {
    const { settings } = this
    this.current = session
    this.snapshots = new ContextSnapshots(session)
    this.permissions = new PermissionGate(settings.permissions, session, (name) => this.tools.get(name, { agentId: this.id })?.annotations)
    this.headers = new HeaderLog(session)
    this.compactor = new Compactor(session, {
      compactAt: settings.compactAt,
      timeoutMs: settings.compactionTimeoutMs,
      headers: this.headers,
      compacted: () => this.snapshots.forget(),
      warn: (message) => this.logger.warn(message),
    })
    this.turns = session.turns().started
    session.closeOpenTurn(interrupted)
  }

  /**
   * A session whose store refused a write (a deleted log, a database that went away) refuses every later
   * append, so before a new turn the agent reopens it from its store: what the store holds is loaded and
   * its cut-off turn closed. A store that still cannot serve it fails this turn with its own error.
   */
  private async recover(): Promise<void> {
    const failure = await this.current.flushed().then(() => undefined, (error: unknown) => error)
    if ((failure as { code?: unknown } | undefined)?.code !== 'WRITE_FAILED') return
    const id = this.current.id
    const stored = this.current.stored
    // the failed session's writer lets its file or connection go
    if (this.sessions.get(id) === this.current) await this.sessions.close(id).catch(() => {})
    // a session that never reached its store (its first write failed) starts there afresh
    const session = stored ? await this.sessions.open(id) : await this.sessions.openOrCreate(id)
    // a failure no turn reported (a connection lost while idle, a write between turns) is told once, now
    const message = messageOf(failure)
    const told = this.reported?.includes(message)
    this.reported = undefined
    this.attach(session, 'the turn ended when its session store failed; its end was not recorded')
    if (!told) this.logger.info(`session "${id}" reopened from ${this.sessions.location} after a failure: ${message}`)
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
    this.headers.modelSwitched(model)
  }

  /** Aborts the running turn, if any; it ends with reason `cancelled`. */
  cancel(): void {
    this.controller?.abort()
  }

  /**
   * Cancels the running turn and refuses every later one: the loop calls it as it is disposed, so no turn
   * starts while the app's tool sources and models are going away (such a turn would log their removal as
   * a tool-list change and tell the user). A prompt after it resolves `cancelled`, logging nothing.
   */
  close(): void {
    this.closed = true
    this.cancel()
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
        const turn: Turn = { turn: this.turns, step: 0, signal, notify: (update) => this.emit('agent/update', this, update) }
        const outcome = await this.compactor.run(turn, this.llm, 'manual', this.session.lastSeq, nextRequest(this.session))
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
    if (this.closed) return Promise.resolve({ turn: this.turns, reason: 'cancelled', text: '', toolCalls: [], error: 'the agent loop is shutting down' })
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
      return await this.runTurn(text, signal, options)
    } finally {
      end()
    }
  }

  private async runTurn(text: string, signal: AbortSignal, options: PromptOptions): Promise<TurnResult> {
    try {
      await this.recover()
    } catch (error) {
      return this.refused(messageOf(error), options)
    }
    return this.runRecovered(text, signal, options)
  }

  /** The turn a session that cannot be reopened refuses: nothing is logged, the caller hears why. */
  private refused(message: string, { onUpdate }: PromptOptions): TurnResult {
    // `reported` keeps the session's own failure: this message is the store's, not that failure
    const turn = this.turns + 1
    this.emit('agent/error', this, { turn, message })
    this.notifier(onUpdate)({ type: 'turn-end', turn, reason: 'error', error: message })
    return { turn, reason: 'error', error: message, text: '', toolCalls: [] }
  }

  /**
   * The observers of a turn that logged nothing (refused): `onUpdate`, then `agent/update`. An observer that
   * throws is logged and the turn goes on, so the log stays balanced (so for `deliveringNotifier`).
   */
  private notifier(onUpdate: PromptOptions['onUpdate']): Turn['notify'] {
    return (update) => {
      this.observe('onUpdate', update, onUpdate)
      this.observe('agent/update', update, (seen) => this.emit('agent/update', this, seen))
    }
  }

  /**
   * The notifier of a running turn: `agent/update` listeners (in this process) hear each update at once;
   * the front door (`onUpdate`, its client) only once the events before it are stored (see UpdateDelivery).
   */
  private deliveringNotifier(delivery: UpdateDelivery): Turn['notify'] {
    return (update) => {
      delivery.push(update)
      this.observe('agent/update', update, (seen) => this.emit('agent/update', this, seen))
    }
  }

  private observe(who: string, update: AgentUpdate, observer: ((update: AgentUpdate) => void) | undefined): void {
    try {
      observer?.(update)
    } catch (error) {
      this.logger.warn(`an agent update observer (${who}) threw on ${update.type}: ${messageOf(error)}`)
    }
  }

  private async runRecovered(text: string, signal: AbortSignal, options: PromptOptions): Promise<TurnResult> {
    const delivery = new UpdateDelivery(this.session, (update) => this.observe('onUpdate', update, options.onUpdate))
    try {
      return await this.runDelivering(text, signal, options.askPermission, delivery)
    } finally {
      await delivery.delivered()
    }
  }

  private async runDelivering(text: string, signal: AbortSignal, askPermission: PromptOptions['askPermission'], delivery: UpdateDelivery): Promise<TurnResult> {
    const turn = ++this.turns
    const current: Turn = {
      turn,
      step: 0,
      signal,
      ...askPermission && { askPermission: delivery.guard(askPermission) },
      notify: this.deliveringNotifier(delivery),
    }
    const { notify } = current
    const result: TurnResult = { turn, reason: 'done', text: '', toolCalls: [] }
    let openStep = 0
    let refused: number | undefined
    try {
      await this.session.flushed()
      this.session.append('turn/start', { turn })
      const asked = this.session.append('user/message', { turn, text })
      for (let step = 1; ; step++) {
        current.step = step
        if (signal.aborted) throw new Cancelled()
        if (step > this.settings.maxSteps) {
          result.reason = 'step_limit'
          result.error = `the turn reached the step limit of ${this.settings.maxSteps} without a final answer`
          break
        }
        const assembly = await this.systemPrompt.assemble({ scope: this.id, signal, model: this.model, cwd: this.settings.cwd, agentId: this.id })
        const header = this.assembledHeader(renderPrompt(assembly), assembly.tools)
        const contexts = assembly.contexts.length ? renderContextSections(assembly) : []
        // The step's model is resolved once: its window, a compaction and the call go through this route.
        const route = this.llm.route(this.model)
        // A cancel that landed during assembly opens no step: nothing would be sent for it.
        if (signal.aborted) throw new Cancelled()
        this.session.append('step/start', { turn, step })
        openStep = step
        // Before a changed header is logged: the compaction request then rides the prefix the provider holds.
        // The first step keeps the user's new message verbatim after the summary; later ones compact it too.
        try {
          await this.compactor.fit(current, route, header, nextRequest(this.session), step === 1 ? asked.seq - 1 : this.session.lastSeq)
        } catch (error) {
          // no request carried the message yet, and none will: it is refused, not history
          if (step === 1 && error instanceof AgentLoopError && error.code === 'CONTEXT_FULL') refused = asked.seq
          throw error
        }
        this.headers.log(current, header)
        // after the header, in the history: a changing runtime context never moves the cached prefix
        this.snapshots.update(turn, step, joinContextSections(contexts), contexts)
        const response = await this.callModel(current, route)
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
        await this.runTools(current, response.toolCalls)
        this.session.append('step/end', { turn, step })
        openStep = 0
      }
    } catch (error) {
      const cancelled = error instanceof Cancelled || error instanceof CompactionCancelled || signal.aborted
      result.reason = cancelled ? 'cancelled' : 'error'
      result.error = cancelled ? 'the turn was cancelled' : messageOf(error)
    }
    try {
      if (refused) this.session.append('user/refused', { turn, messageSeq: refused })
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
      this.reported = result.error
      this.emit('agent/error', this, { turn, message: result.error! })
    }
    notify({ type: 'turn-end', turn, reason: result.reason, ...(result.error ? { error: result.error } : {}) })
    return result
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

  /** Dispatches exactly the logged header and the logged history, deep-frozen, and collects the answer. */
  private async callModel(current: Turn, route: LlmRoute) {
    const { turn, step, signal, notify } = current
    const request: GenerateOptions = { ...nextRequest(this.session)!, signal }
    this.lastRequest = request
    let response
    try {
      response = await collect(route.stream(request), { onText: (delta) => notify({ type: 'text', turn, step, delta }) })
    } catch (error) {
      if (error instanceof LlmError && error.code === 'CANCELLED') throw new Cancelled()
      throw error
    }
    if (signal.aborted) throw new Cancelled()
    return response
  }

  private async runTools(current: Turn, calls: ToolCall[]) {
    const { turn, step, signal, notify } = current
    for (const call of calls) {
      this.session.append('tool/call', { turn, step, id: call.id, name: call.name, arguments: call.arguments })
      notify({ type: 'tool-call', turn, step, id: call.id, name: call.name, arguments: call.arguments })
    }
    // asked one call after another before any runs; a refused call's result is an ordinary error result
    const refused = await this.permissions.check(turn, step, calls, signal, current.askPermission)
    const results = await mapWithLimit(calls, this.settings.toolConcurrency,
      (call, index) => refused[index] ? Promise.resolve(refused[index]) : this.tools.execute(call.name, call.arguments, { signal, agentId: this.id }))
    calls.forEach((call, index) => {
      const { output, isError } = results[index]
      this.session.append('tool/result', { turn, step, id: call.id, name: call.name, output, isError })
      notify({ type: 'tool-result', turn, step, id: call.id, name: call.name, output, isError })
    })
    if (signal.aborted) throw new Cancelled()
  }
}
