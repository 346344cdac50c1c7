import type { Context } from 'cordis'
import { describeValue, messageOf, type ToolCall } from 'dsh-core'
import type { ExecutableTool } from 'dsh-tools'
import type { ToolResult } from './types.ts'
import { forkAgent, type ForkParent } from './fork.ts'

/** The name the model calls a child agent by. */
export const AGENT_TOOL = 'agent'

const MODES = ['fork', 'fresh']

/**
 * The `agent` tool as the model sees it. Its text is fixed (no config value in it), so it is the same bytes in
 * every app that offers it. A call never reaches `execute`: the loop runs it as a fork of the calling agent
 * (`agentToolCall`), inside that agent's turn.
 */
export const agentToolDefinition: ExecutableTool = Object.freeze({
  name: AGENT_TOOL,
  description: 'Runs a child agent on a task and returns its final answer. mode "fork" (the default): the child continues from '
    + 'this conversation as it stands (the same tools, instructions and history, then your instruction), so its first request reads '
    + 'this conversation from the prompt cache. mode "fresh": the child starts with no history and only your instruction; its '
    + 'prompt is not cached (a cold prefix, paid in full). Several children may run at once.',
  parameters: {
    type: 'object',
    properties: {
      instruction: { type: 'string', description: 'What the child should do, and what its answer should contain.' },
      description: { type: 'string', description: 'A few words on the task, shown to the user (e.g. "find the flaky test").' },
      mode: { type: 'string', enum: MODES, description: '"fork" (default) or "fresh".' },
    },
    required: ['instruction', 'description'],
    additionalProperties: false,
  },
  execute() {
    throw new Error('the agent tool runs inside a turn of dsh-agent-loop, as a fork of the agent that calls it')
  },
})

/**
 * Runs the parent's `agent` call as a child agent (`forkAgent`, with the call's id): its final text is the
 * result; a child that did not finish, or a refused fork, is an error result the model reads.
 */
export async function agentToolCall(home: Context, parent: ForkParent, call: ToolCall): Promise<ToolResult> {
  const { instruction, description, mode = 'fork' } = call.arguments as Record<string, unknown>
  if (!MODES.includes(mode as string)) {
    return { output: `unknown mode ${describeValue(mode)} of tool "agent"; modes: "fork" (the default: continue from this conversation), "fresh" (a new one)`, isError: true }
  }
  try {
    const result = await forkAgent(home, parent, { mode: mode as 'fork' | 'fresh', instruction: instruction as string, description: description as string, call: call.id })
    if (result.reason === 'done') return { output: result.text, isError: false }
    return { output: `child agent ${result.child} ended (${result.reason}): ${result.error ?? ''}`, isError: true }
  } catch (error) {
    return { output: messageOf(error), isError: true }
  }
}
