import type { ChatMessage, ToolHistorySnapshot } from 'dsh-core'
import type { GenerateOptions } from 'dsh-llm'
import type LlmRuntime from 'dsh-llm'
import { Session, type RequestHeader, type SessionEvent } from 'dsh-session'
import { previousResponseId } from './verdict-event.ts'

/** A model resolved once (`ctx.llm.route`). */
type LlmRoute = ReturnType<LlmRuntime['route']>

/** The model-facing part of a request: what must be rebuildable from the session log alone. */
export interface RequestShape extends RequestHeader {
  messages: ChatMessage[]
  /** The tool updates of the request sequence, which decide how an adapter projects a tool change. */
  toolHistory?: ToolHistorySnapshot
  /** The previous response of the request's sequence (`provider/verdict`), null on a sequence's first request. */
  previousResponseId: string | null
}

/**
 * Rebuilds the last request the loop dispatched from the session log alone: the header in force at the
 * last step's request and the history logged before it. Replaying the events into a fresh in-memory
 * session reuses the session's own folds, so this check and the loop cannot disagree on the rules.
 */
export function rebuildLastRequest(events: readonly SessionEvent[]): RequestShape | undefined {
  let cut = -1
  for (let index = events.length - 1; index >= 0; index--) {
    if (events[index].type === 'assistant/message') { cut = index; break }
  }
  // A step whose request failed has no assistant/message; its header still tells what was dispatched.
  const lastStart = events.findLastIndex((event) => event.type === 'step/start')
  if (lastStart > cut) {
    const end = events.findIndex((event, index) => index > lastStart && (event.type === 'step/end' || event.type === 'turn/end'))
    cut = end < 0 ? events.length : end
  }
  if (cut < 0) return undefined
  const replay = new Session('rebuild')
  for (const event of events.slice(0, cut)) replay.append(event.type, event.data)
  const header = replay.requestHeader()?.data.header
  if (!header) return undefined
  return {
    model: header.model, system: header.system, tools: [...header.tools],
    ...header.deferredTools && { deferredTools: [...header.deferredTools] },
    messages: [...replay.messages()],
    ...replay.toolHistory() && { toolHistory: replay.toolHistory() },
    previousResponseId: previousResponseId(replay),
  }
}

/** The request the loop would dispatch now, without its signal: the logged header and the logged history; none before a header. */
export function nextRequest(session: Session): Omit<GenerateOptions, 'signal'> | undefined {
  const logged = session.requestHeader()?.data.header
  if (!logged) return undefined
  return {
    model: logged.model,
    system: logged.system,
    tools: logged.tools,
    messages: session.messages(),
    toolHistory: session.toolHistory(),
    ...(logged.deferredTools?.length ? { deferredTools: logged.deferredTools } : {}),
    previousResponseId: previousResponseId(session),
  }
}

/**
 * The session line of a request, for a route that pins requests by it (its adapter names an `affinity`
 * field for the model): the session's own id and, for a forked child, its parent's and its mode, read from
 * the `fork/parent` event that opens a child's log. Nothing on every other route, so their requests (and
 * what the log rebuilds of them) stay as they were; on an affinity route a request rebuilt from the log gets
 * it back from the log's name (the session id) and its first event.
 */
export function lineageFor(route: Pick<LlmRoute, 'model' | 'adapter'>, session: Session): Pick<GenerateOptions, 'lineage'> {
  if (!route.adapter.affinity?.(route.model)) return {}
  const opening = session.event(1)
  const link = opening?.type === 'fork/parent' ? (opening as SessionEvent<'fork/parent'>).data : undefined
  return { lineage: { session: session.id, ...link && { parent: link.parent, mode: link.mode } } }
}
