import type { Context } from 'cordis'
import type { ToolCall } from 'dsh-core'
import type { Session } from 'dsh-session'
import type { ToolResult } from './types.ts'
import { mapWithLimit } from './limit.ts'
import type { PermissionGate } from './permission-gate.ts'
import type { Turn } from './turn.ts'

/** What running a step's tool calls needs from its agent. */
export interface ToolCallParts {
  session: Session
  permissions: PermissionGate
  tools: Context['tools']
  agentId: string
  /** How many calls run at once (`toolConcurrency`). */
  concurrency: number
  /** Runs a call of the offered `agent` tool as a child agent; undefined for any other call (agent-tool.ts). */
  agentTool?: (call: ToolCall) => Promise<ToolResult> | undefined
}

/**
 * Logs and announces a step's tool calls, decides each (asking the front door one call after another,
 * before any runs), runs the allowed ones and logs every result in call order. A refused call's result is an
 * ordinary error result.
 */
export async function runToolCalls(current: Turn, calls: readonly ToolCall[], parts: ToolCallParts): Promise<void> {
  const { turn, step, signal, notify } = current
  const { session, tools, agentId } = parts
  for (const call of calls) {
    session.append('tool/call', { turn, step, id: call.id, name: call.name, arguments: call.arguments })
    notify({ type: 'tool-call', turn, step, id: call.id, name: call.name, arguments: call.arguments })
  }
  const refused = await parts.permissions.check(turn, step, calls, signal, current.askPermission)
  const results = await mapWithLimit(calls, parts.concurrency,
    (call, index) => refused[index] ? Promise.resolve(refused[index])
      : parts.agentTool?.(call) ?? tools.execute(call.name, call.arguments, { signal, agentId }))
  calls.forEach((call, index) => {
    const { output, isError } = results[index]
    session.append('tool/result', { turn, step, id: call.id, name: call.name, output, isError })
    notify({ type: 'tool-result', turn, step, id: call.id, name: call.name, output, isError })
  })
}
