import type { SessionUpdate } from '@agentclientprotocol/sdk'
import { oneLine } from 'dsh-core'
import type { AgentUpdate } from 'dsh-harness'
import type { ChildUpdate } from './harness-types.ts'

/** How much of a child's own answer its parent's call shows while it runs (the whole answer is the call's result). */
const SAID_CHARS = 400

/**
 * A child agent's progress shown as `tool_call_update`s of its parent's `agent` call (ACP has no nested sessions
 * in its stable schema): the call's content lists the child's session, its tool calls and results, and the start
 * of what it says, and is replaced at each update until the call's own result ends it. An update of a call the
 * client has not been told about yet waits for that call's `tool_call`; one after its result is dropped.
 */
export class ChildProgress {
  private readonly announced = new Set<string>()
  private readonly finished = new Set<string>()
  private readonly waiting = new Map<string, ChildUpdate[]>()
  private readonly shown = new Map<string, { child: string; lines: string[]; said: string }>()

  /** `queue` sends one update after those queued before it. */
  constructor(private readonly queue: (update: SessionUpdate) => void) {}

  /** The parent's own update, as it is queued: a `tool-call` announces a call, a `tool-result` ends it. */
  parentUpdate(update: AgentUpdate): void {
    if (update.type === 'tool-result') this.finished.add(update.id)
    if (update.type !== 'tool-call') return
    this.announced.add(update.id)
    const held = this.waiting.get(update.id) ?? []
    this.waiting.delete(update.id)
    for (const item of held) this.childUpdate(item)
  }

  /** A child's update: shown under its parent's call (side questions have no call and are not shown here). */
  childUpdate(item: ChildUpdate): void {
    const { call } = item
    if (call === undefined || this.finished.has(call)) return
    if (!this.announced.has(call)) {
      this.waiting.set(call, [...this.waiting.get(call) ?? [], item])
      return
    }
    const state = this.shown.get(call) ?? { child: item.child, lines: [], said: '' }
    this.shown.set(call, state)
    const { update } = item
    if (update.type === 'text') state.said += update.delta
    else if (update.type === 'tool-call') state.lines.push(`→ ${update.name} ${oneLine(JSON.stringify(update.arguments), 120)}`)
    else if (update.type === 'tool-result') state.lines.push(`← ${update.isError ? '(error) ' : ''}${oneLine(update.output, 120)}`)
    else if (update.type !== 'turn-end') return
    const text = [`child session ${state.child}${update.type === 'turn-end' ? ` ended (${update.reason})` : ' running'}`, ...state.lines,
      ...state.said ? [oneLine(state.said, SAID_CHARS)] : []].join('\n')
    this.queue({
      sessionUpdate: 'tool_call_update',
      toolCallId: call,
      status: 'in_progress',
      content: [{ type: 'content', content: { type: 'text', text } }],
      _meta: { dsh: { child: state.child } },
    })
  }
}
