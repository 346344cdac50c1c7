import type { Context } from 'cordis'
import { messageOf, rawService } from 'dsh-core'
import type { GenerateOptions } from 'dsh-llm'
import type { Session } from 'dsh-session'
import { joinContextSections } from 'dsh-system-prompt/bytes'
import { CompactionCancelled, type CompactionOutcome } from './compaction.ts'
import { UpdateDelivery } from './delivery.ts'
import { AgentLoopError } from './errors.ts'
import { agentToolCall } from './agent-tool.ts'
import { forkAgent, type ForkOptions, type ForkResult } from './fork.ts'
import { callModel } from './model-call.ts'
import { UpdateObservers } from './observers.ts'
import { lineageFor, nextRequest } from './reconstruct.ts'
import { SessionParts } from './session-parts.ts'
import { assembleStep } from './step-input.ts'
import { reopenAfterStoreFailure } from './store-recovery.ts'
import { logVerdict } from './verdict-event.ts'
import { runToolCalls } from './tool-calls.ts'
import { TurnCancelled, linkedController, logTurnEnd, type Turn } from './turn.ts'
import type { AgentSettings, AgentStatus, CompactionReason, PromptOptions, TurnResult } from './types.ts'

/** One conversation: a session, a model and a status. `prompt()` runs one turn at a time. */
export class Agent {
  status: AgentStatus = 'idle'
  /** The last request handed to the model, exactly as dispatched (deep-frozen). */
  lastRequest: Readonly<GenerateOptions> | undefined
  /** The running turn (its number, signal and asker), if any: a fork inside it inherits them. */
  turnInProgress: Turn | undefined
  private turns = 0
  /** The last error a turn reported: a session failure it carried is not reported again on reopen. */
  private reported: string | undefined
  private controller: AbortController | undefined
  private running: Promise<void> | undefined
  /** Set by `close()`: the loop is being disposed, and no new turn starts. */
  private closed = false
  private parts!: SessionParts

  /** The loop's services, resolved once and unwrapped (Cordis's tracing proxies cost microseconds a step, for effects these calls never create). */
  private readonly systemPrompt: Context['systemPrompt']
  private readonly llm: Context['llm']
  private readonly tools: Context['tools']
  private readonly sessions: Context['sessions']
  private readonly emit: Context['emit']
  private readonly logger: ReturnType<Context['logger']>
  private readonly observers: UpdateObservers

  /**
   * `ctx`: the agent's own Cordis context, a child of the loop's: `agent.ctx.systemPrompt.section(…)` and the other registrations,
   * and `agent.ctx.on('system-prompt/assemble', …)`, apply to its assemblies alone and go when it is removed or the loop is disposed.
   */
  constructor(private readonly home: Context, readonly ctx: Context, readonly id: string, session: Session, readonly settings: AgentSettings) {
    this.systemPrompt = rawService(home.systemPrompt)
    this.llm = rawService(home.llm)
    this.tools = rawService(home.tools)
    this.sessions = rawService(home.sessions)
    this.emit = home.emit
    this.logger = home.logger('agent-loop')
    this.observers = new UpdateObservers((update) => this.emit('agent/update', this, update), (text) => this.logger.warn(text))
    this.attach(session, 'the turn was interrupted before it ended (the process stopped)')
  }

  /** The agent's session: the one it was created with, or the one reopened after its store refused a write. */
  get session(): Session {
    return this.parts.session
  }

  /** Binds the agent to `session`; a log that ends inside a turn is balanced before anything new is logged. */
  private attach(session: Session, interrupted: string): void {
    this.parts = new SessionParts(session, this.settings, this.tools, this.settings.scope, (text) => this.logger.warn(text))
    this.turns = session.turns().started
    session.closeOpenTurn(interrupted)
  }

  get model(): string { return this.settings.model }

  /** Switches the model of the next requests (`/model`): a served one, logged as `model/switch`; the next header has reason `model`. */
  switchModel(model: string): void {
    if (this.status === 'running') throw new AgentLoopError('BUSY', `agent "${this.id}" is running a turn; switch the model after it ends`)
    this.llm.resolve(model)
    if (model === this.settings.model) return
    this.session.append('model/switch', { turn: this.turns, from: this.settings.model, to: model })
    this.settings.model = model
    this.parts.headers.modelSwitched(model)
  }

  /** Aborts the running turn, if any; it ends with reason `cancelled`. */
  cancel(): void {
    this.controller?.abort()
  }

  /**
   * Cancels the running turn and refuses every later one (the loop, as it is disposed: a turn then would log the app's tool
   * sources going away as a tool-list change). A prompt after it resolves `cancelled`, logging nothing.
   */
  close(): void {
    this.closed = true
    this.cancel()
  }

  /**
   * Compacts the session now (`/compact`; the keepalive's compaction while warm passes `reason: 'auto'`): the summary replaces every
   * message logged so far. Resolves with the outcome, a failure included (nothing is logged then); rejects only when a turn is running.
   */
  compact(options: { signal?: AbortSignal; reason?: CompactionReason } = {}): Promise<CompactionOutcome> {
    if (this.status === 'running') return Promise.reject(new AgentLoopError('BUSY', `agent "${this.id}" is running a turn; compact after it ends`))
    const notify: Turn['notify'] = (update) => this.emit('agent/update', this, update)
    return this.exclusive(options.signal, (signal) => this.parts.compactor.manual({ turn: this.turns, step: 0, signal, notify }, this.llm, options.reason))
  }

  /** Runs a child agent on its own session `<session>~<n>` and resolves with its answer (fork.ts). */
  fork(options: ForkOptions): Promise<ForkResult> {
    return forkAgent(this.home, this, options)
  }

  /** Runs one turn. Resolves with how it ended; rejects only when the agent is already running. */
  prompt(text: string, options: PromptOptions = {}): Promise<TurnResult> {
    if (typeof text !== 'string') return Promise.reject(new AgentLoopError('INVALID_PROMPT', `a prompt must be a string, got ${typeof text}`))
    if (this.status === 'running') return Promise.reject(new AgentLoopError('BUSY', `agent "${this.id}" is already running a turn; cancel it or wait`))
    if (this.closed) return Promise.resolve({ turn: this.turns, reason: 'cancelled', text: '', toolCalls: [], error: 'the agent loop is shutting down' })
    return this.exclusive(options.signal, (signal) => this.run(text, signal, options))
  }

  /** Resolves once no turn is running (at once when idle); never rejects. */
  async idle(): Promise<void> {
    await this.running
  }

  /** Runs `work` as the agent's one running job, with a fresh controller that the caller's signal also aborts. */
  private exclusive<T>(outer: AbortSignal | undefined, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    this.status = 'running'
    const { controller, detach } = linkedController(outer)
    this.controller = controller
    const running = work(controller.signal).finally(() => {
      detach()
      this.controller = undefined
      this.status = 'idle'
    })
    this.running = running.then(() => {}, () => {})
    return running
  }

  /** One turn: the session is first recovered if its store failed; the turn's updates are all delivered before it resolves. */
  private async run(text: string, signal: AbortSignal, options: PromptOptions): Promise<TurnResult> {
    try {
      await this.recover()
    } catch (error) {
      return this.refused(messageOf(error), options)
    }
    const delivery = new UpdateDelivery(this.session, (update) => this.observers.observe('onUpdate', update, options.onUpdate))
    try {
      return await this.loop(text, signal, options.askPermission, delivery)
    } finally {
      await delivery.delivered()
    }
  }

  /** Before a turn: a session whose store refused a write is reopened from it (store-recovery.ts); rejects while it cannot be. */
  private async recover(): Promise<void> {
    const reopened = await reopenAfterStoreFailure(this.session, this.sessions, this.reported)
    if (!reopened) return
    this.reported = undefined
    this.attach(reopened.session, 'the turn ended when its session store failed; its end was not recorded')
    if (reopened.notice) this.logger.info(reopened.notice)
  }

  /** The turn a session that cannot be reopened refuses: nothing is logged, the caller hears why. */
  private refused(message: string, { onUpdate }: PromptOptions): TurnResult {
    // `reported` keeps the session's own failure: this message is the store's, not that failure
    const turn = this.turns + 1
    this.emit('agent/error', this, { turn, message })
    this.observers.direct(onUpdate)({ type: 'turn-end', turn, reason: 'error', error: message })
    return { turn, reason: 'error', error: message, text: '', toolCalls: [] }
  }

  /** The turn itself: its steps, each assembled, fitted, logged, sent and its tool calls run, until an answer without calls. */
  private async loop(text: string, signal: AbortSignal, askPermission: PromptOptions['askPermission'], delivery: UpdateDelivery): Promise<TurnResult> {
    const turn = ++this.turns
    const notify = this.observers.delivering(delivery)
    const current: Turn = this.turnInProgress = { turn, step: 0, signal, notify, ...askPermission && { askPermission: delivery.guard(askPermission) } }
    const result: TurnResult = { turn, reason: 'done', text: '', toolCalls: [] }
    let openStep = 0
    let refusedSeq: number | undefined
    const { session, parts, settings } = this
    try {
      await session.flushed()
      session.append('turn/start', { turn })
      const asked = session.append('user/message', { turn, text })
      for (let step = 1; ; step++) {
        current.step = step
        if (signal.aborted) throw new TurnCancelled()
        if (step > settings.maxSteps) {
          result.reason = 'step_limit'
          result.error = `the turn reached the step limit of ${settings.maxSteps} without a final answer`
          break
        }
        const { header, contexts } = await assembleStep({ systemPrompt: this.systemPrompt, tools: this.tools }, { agentId: settings.scope, model: this.model, cwd: settings.cwd, signal })
        // The step's model is resolved once: its window, a compaction and the call go through this route.
        const route = this.llm.route(this.model)
        // A cancel that landed during assembly opens no step: nothing would be sent for it.
        if (signal.aborted) throw new TurnCancelled()
        session.append('step/start', { turn, step })
        openStep = step
        // Before a changed header is logged: the compaction request then rides the prefix the provider holds.
        // The first step keeps the user's new message verbatim after the summary; later ones compact it too.
        try {
          await parts.compactor.fit(current, route, header, nextRequest(session), step === 1 ? asked.seq - 1 : session.lastSeq)
        } catch (error) {
          // no request carried the message yet, and none will: it is refused, not history
          if (step === 1 && AgentLoopError.is(error, 'CONTEXT_FULL')) refusedSeq = asked.seq
          throw error
        }
        parts.headers.log(current, header)
        // after the header, in the history: a changing runtime context never moves the cached prefix
        parts.snapshots.update(turn, step, joinContextSections(contexts), contexts)
        // exactly the logged header and the logged history, deep-frozen
        const request: GenerateOptions = { ...nextRequest(session)!, ...lineageFor(route, session), signal }
        this.lastRequest = request
        const response = await callModel(current, route, request)
        const { usage, toolCalls, verdict } = response
        session.append('assistant/message', { turn, step, text: response.text, toolCalls, ...(usage ? { usage } : {}) })
        if (verdict) logVerdict(session, turn, step, verdict, request.previousResponseId) // the id the sequence's next request names
        if (usage) notify({ type: 'usage', turn, step, usage, ...(verdict ? { verdict } : {}) })
        result.text = response.text
        result.toolCalls = toolCalls
        if (toolCalls.length) {
          await runToolCalls(current, toolCalls, {
            session, permissions: parts.permissions, tools: this.tools, agentId: settings.scope, concurrency: settings.toolConcurrency,
            agentTool: (call) => rawService(this.home.agentLoop).agentTool(call.name) ? agentToolCall(this.home, this, call) : undefined,
          })
          if (signal.aborted) throw new TurnCancelled()
        }
        session.append('step/end', { turn, step })
        openStep = 0
        if (!toolCalls.length) break
      }
    } catch (error) {
      const cancelled = error instanceof TurnCancelled || error instanceof CompactionCancelled || signal.aborted
      result.reason = cancelled ? 'cancelled' : 'error'
      result.error = cancelled ? 'the turn was cancelled' : messageOf(error)
    }
    this.turnInProgress = undefined
    await logTurnEnd(session, result, { step: openStep, refusedSeq })
    if (result.reason === 'error' || result.reason === 'step_limit') {
      this.reported = result.error
      this.emit('agent/error', this, { turn, message: result.error! })
    }
    notify({ type: 'turn-end', turn, reason: result.reason, ...(result.error ? { error: result.error } : {}) })
    return result
  }
}
