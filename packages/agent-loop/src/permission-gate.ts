import { describeValue, messageOf, type ToolCall } from 'dsh-core'
import type { EventData, Session } from 'dsh-session'
import type ToolRuntime from 'dsh-tools'
import type { ExecutableTool } from 'dsh-tools'
import type { PermissionPolicy } from './permission-policy.ts'

/** A tool's hints about its effects, and what a call gives back (dsh-tools' `ExecutableTool` and `ctx.tools.execute`). */
type ToolAnnotations = NonNullable<ExecutableTool['annotations']>
type ToolResult = Awaited<ReturnType<ToolRuntime['execute']>>

/** What the person asked may choose (a `permission/decision`'s `answer`). */
type PermissionAnswer = NonNullable<EventData<'permission/decision'>['answer']>

/** One question to the person at the front door: may this call run? */
export interface PermissionRequest {
  turn: number
  step: number
  /** The tool call's id, as in its `tool/call` event. */
  id: string
  name: string
  arguments: Record<string, unknown>
  /** The answers to offer, in this order; `allow-always` is left out for a tool that says it is destructive. */
  options: readonly PermissionAnswer[]
  destructive: boolean
  /** Aborted when the turn is cancelled: stop asking then (the call is not run). */
  signal: AbortSignal
  /** Set when a child agent asks (`agent.fork()`): its session id and the description its parent gave it. */
  fork?: { child: string; description: string }
}

/**
 * Asks the person using a front door (a terminal, an ACP client) and resolves with one of
 * `request.options`. Front doors pass it with each prompt; without one, a call that needs asking is denied
 * with a result naming the policy key to change. A rejection denies the call.
 */
export type PermissionAsker = (request: PermissionRequest) => Promise<PermissionAnswer | PermissionReply>

/**
 * An answer with the words its refusal gets, for a front door that knows who answered: an ACP client may
 * answer by its own policy without asking anyone, so "the user denied" would not be true there.
 */
export interface PermissionReply {
  answer: PermissionAnswer
  /** The error result of a `deny` answer; by default `the user denied the call of tool "<name>"; it did not run`. */
  refusal?: string
}

type Decision = Omit<EventData<'permission/decision'>, 'turn' | 'step' | 'id' | 'name'>

const ALL_ANSWERS: readonly PermissionAnswer[] = Object.freeze(['allow-once', 'allow-always', 'deny'])
const EVERY_CALL: readonly PermissionAnswer[] = Object.freeze(['allow-once', 'deny'])

/**
 * The permission policy of one agent: decides each tool call of a step before it runs, logs every decision
 * as `permission/decision`, and remembers the session's `allow-always` answers (read back from the log, so a
 * resumed session keeps them). Without a policy every call runs and nothing is logged.
 */
export class PermissionGate {
  private readonly always = new Set<string>()

  constructor(
    private readonly policy: PermissionPolicy | undefined,
    private readonly session: Session,
    private readonly hints: (name: string) => Readonly<ToolAnnotations> | undefined,
  ) {
    if (!policy) return
    for (const event of session.events()) {
      if (event.type === 'permission/decision' && event.data.answer === 'allow-always') this.always.add(event.data.name)
    }
  }

  /**
   * Decides `calls` one after another, in call order, so questions never overlap and the log reads in call
   * order. Returns, per call, undefined when it may run, or the error result it gets instead.
   */
  async check(turn: number, step: number, calls: readonly ToolCall[], signal: AbortSignal, ask: PermissionAsker | undefined): Promise<(ToolResult | undefined)[]> {
    if (!this.policy) return calls.map(() => undefined)
    const outcomes: (ToolResult | undefined)[] = []
    for (const call of calls) {
      const { decision, refusal } = await this.decide(turn, step, call, signal, ask)
      this.session.append('permission/decision', { turn, step, id: call.id, name: call.name, ...decision })
      if (decision.answer === 'allow-always') this.always.add(call.name)
      outcomes.push(decision.decision === 'allow' ? undefined : { output: refusal!, isError: true })
    }
    return outcomes
  }

  private async decide(turn: number, step: number, call: ToolCall, signal: AbortSignal, ask: PermissionAsker | undefined)
    : Promise<{ decision: Decision; refusal?: string }> {
    const name = describeValue(call.name)
    const cancelled = { decision: { decision: 'deny', by: 'cancelled' } as Decision, refusal: `tool ${name} was cancelled` }
    if (signal.aborted) return cancelled
    const verdict = this.policy!.judge(call.name, this.hints(call.name))
    if (verdict.decision !== 'ask') {
      const decision: Decision = { ...verdict, by: 'policy' }
      if (verdict.decision === 'allow') return { decision }
      const which = verdict.pattern === undefined ? `permissions.default: deny` : `permissions.deny: ${describeValue(verdict.pattern)}`
      return { decision, refusal: `tool ${name} is denied by the permission policy (${which}); the call did not run` }
    }
    if (!verdict.destructive && this.always.has(call.name)) return { decision: { decision: 'allow', by: 'session' } }
    const unanswered = (why: string) => ({
      decision: { decision: 'deny', by: 'unanswered' } as Decision,
      refusal: `tool ${name} needs permission and ${why}, so it did not run; to let it run without asking, add it to `
        + `permissions.allow in the app file (permissions.allow: [${describeValue(call.name)}]) or set permissions.default: allow`,
    })
    if (!ask) return unanswered('there is no one to ask here (no terminal, no client)')
    const options = verdict.destructive ? EVERY_CALL : ALL_ANSWERS
    let reply: PermissionAnswer | PermissionReply
    try {
      reply = await ask({ turn, step, id: call.id, name: call.name, arguments: call.arguments, options, destructive: verdict.destructive, signal })
    } catch (error) {
      return signal.aborted ? cancelled : unanswered(`asking failed (${messageOf(error)})`)
    }
    if (signal.aborted) return cancelled
    const answer = typeof reply === 'object' && reply !== null ? reply.answer : reply
    if (!options.includes(answer)) return unanswered(`the answer ${describeValue(answer)} is not one of ${options.join(', ')}`)
    if (answer === 'deny') {
      const refusal = (typeof reply === 'object' && reply?.refusal) || `the user denied the call of tool ${name}; it did not run`
      return { decision: { decision: 'deny', by: 'user', answer }, refusal }
    }
    return { decision: { decision: 'allow', by: 'user', answer } }
  }
}
