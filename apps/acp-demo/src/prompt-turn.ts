import type { PromptResponse, SessionUpdate } from '@agentclientprotocol/sdk'
// the prompt response's `usage` is typed by the SDK's unstable schema only (ACP's session-usage RFD)
import type { PromptResponse as PromptResponseWithUsage } from '@agentclientprotocol/sdk/unstable'
import type { Logger } from 'cordis'
import { messageOf } from 'dsh-core'
import { AgentLoopError } from 'dsh-harness'
import type { Agent, AgentUpdate, Harness } from 'dsh-harness'
import type { TurnResult } from './harness-types.ts'
import { ChildProgress } from './child-progress.ts'
import { AcpDemoError } from './errors.ts'
import { clientAsker, type RequestPermission } from './permission-request.ts'
import { stopReasonOf, toSessionUpdate, type KindOf, type Notices } from './updates.ts'

export interface TurnOptions {
  signal: AbortSignal
  /** Sends one `session/update` notification for this session. */
  send: (update: SessionUpdate) => Promise<void>
  logger: Logger
  /** Set when the client can present `notice` updates: tool-list changes are sent as notices in this locale. */
  notices?: Notices
  /** Sends `session/request_permission` to the client, for calls the permission policy asks about. */
  requestPermission?: RequestPermission
  /** The ACP kind of each tool the turn calls (for its `tool_call` and its permission request). */
  kindOf?: KindOf
  /**
   * Where the turn's `usage_update` reads the context window and the session's cost, and where the progress of its
   * child agents (its `agent` calls) is heard, shown as updates of those calls.
   */
  harness?: Pick<Harness, 'contextWindow' | 'cost' | 'onChildUpdate'>
}

type TurnUsage = Extract<AgentUpdate, { type: 'usage' }>['usage']

/**
 * The `usage_update` after a turn: the tokens now in context (the last request's prompt and its answer), the
 * model's context window, and the session's cumulative cost in USD when its model has a price. None without
 * usage or without a known window (`size` is required).
 */
export function usageUpdate(agent: Agent, usages: readonly TurnUsage[], harness: Pick<Harness, 'contextWindow' | 'cost'>): SessionUpdate | undefined {
  const last = usages.at(-1)
  const size = harness.contextWindow(agent)
  if (!last || size === undefined) return undefined
  const cost = harness.cost(agent)
  return {
    sessionUpdate: 'usage_update',
    used: last.inputTokens + last.outputTokens,
    size,
    ...cost && { cost: { amount: cost.billed, currency: 'USD', ...cost.emulated && { _meta: { emulated: true } } } },
  }
}

/** The turn's tokens, summed over its requests, as the prompt response's `usage` (cache reads and writes included). */
export function turnUsage(usages: readonly TurnUsage[]): PromptResponseWithUsage['usage'] {
  if (!usages.length) return undefined
  const sum = (key: 'inputTokens' | 'outputTokens' | 'cacheReadTokens' | 'cacheWriteTokens') => usages.reduce((total, usage) => total + usage[key], 0)
  const inputTokens = sum('inputTokens')
  const outputTokens = sum('outputTokens')
  return { totalTokens: inputTokens + outputTokens, inputTokens, outputTokens, cachedReadTokens: sum('cacheReadTokens'), cachedWriteTokens: sum('cacheWriteTokens') }
}

/**
 * Runs one DSH turn for a `session/prompt` and answers it. Updates are sent one after another, and all of
 * them before the response, so an editor never sees a chunk after the turn it belongs to has stopped.
 * A failed turn (reason `error`) becomes an `AcpDemoError` carrying the turn's own message.
 */
export async function runPromptTurn(agent: Agent, text: string, options: TurnOptions): Promise<PromptResponse> {
  const { send, logger } = options
  let sending = Promise.resolve()
  let sendFailed = false
  const usages: TurnUsage[] = []
  const queue = (mapped: SessionUpdate) => {
    sending = sending.then(() => send(mapped)).catch((error) => {
      // the client went away mid-turn; the turn still ends balanced in the session log
      if (!sendFailed) logger.warn('session %s: cannot send session/update: %s', agent.id, messageOf(error))
      sendFailed = true
    })
  }
  // a child agent's progress goes out as updates of the parent's `agent` call, after that call's own tool_call
  const progress = new ChildProgress(queue)
  const onUpdate = (update: AgentUpdate) => {
    if (update.type === 'usage') usages.push(update.usage)
    const mapped = toSessionUpdate(update, options.notices, options.kindOf)
    if (mapped) queue(mapped)
    progress.parentUpdate(update)
  }
  const stopChildren = options.harness?.onChildUpdate(agent.id, (item) => progress.childUpdate(item))

  let result: TurnResult
  try {
    // a question waits for the updates sent so far: the client knows the tool call it is asked about
    const ask = options.requestPermission && clientAsker(agent.id, options.requestPermission, options.kindOf)
    const askPermission = ask && (async (request: Parameters<typeof ask>[0]) => { await sending; return ask(request) })
    result = await agent.prompt(text, { signal: options.signal, onUpdate, ...askPermission && { askPermission } })
  } catch (error) {
    if (AgentLoopError.is(error, 'BUSY')) {
      throw new AcpDemoError('BUSY', `session "${agent.id}" is already running a prompt turn; send session/cancel or wait for its response`,
        { sessionId: agent.id })
    }
    throw error
  } finally {
    stopChildren?.()
    await sending
  }
  // after each turn, before its response: the context in use, the window, and what the session cost so far
  const usage = options.harness && usageUpdate(agent, usages, options.harness)
  if (usage) {
    try {
      await send(usage)
    } catch (error) {
      if (!sendFailed) logger.warn('session %s: cannot send session/update: %s', agent.id, messageOf(error))
    }
  }

  if (result.reason === 'error') {
    const message = result.error ?? `turn ${result.turn} failed`
    logger.warn('session %s: turn %d failed: %s', agent.id, result.turn, message)
    throw new AcpDemoError('TURN_FAILED', message, { sessionId: agent.id, turn: result.turn })
  }
  if (result.reason === 'step_limit') logger.warn('session %s: turn %d: %s', agent.id, result.turn, result.error)
  const tokens = turnUsage(usages)
  const response: PromptResponseWithUsage = { stopReason: stopReasonOf(result.reason), ...tokens && { usage: tokens } }
  return response
}
