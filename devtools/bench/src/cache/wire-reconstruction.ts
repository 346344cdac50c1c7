import type { Context } from 'cordis'
import { rebuildLastRequest } from 'dsh-agent-loop'
import type { GenerateOptions } from 'dsh-llm'

/**
 * Every loop request of a Chat Completions run, rebuilt from the session log, mapped to its wire body by the
 * adapter's own planner and compared with the bytes the emulator received for it.
 */
export const wireReconstruction = { checked: 0, mismatches: [] as string[], received: [] as readonly { body: string }[] }

/**
 * At each `llm/request` of agent `agentId`'s own steps (not its compaction requests), rebuilds the request
 * from the log as it stands and maps it with `build` (the adapter's body for it); at its `llm/response`,
 * compares that with the body the emulator received last (`wireReconstruction.received`).
 */
export function watchWireReconstruction(ctx: Context, agentId: string, build: (options: GenerateOptions) => string) {
  const rebuilt = new WeakMap<GenerateOptions, string>()
  ctx.on('llm/request', (options: GenerateOptions) => {
    let agent
    try {
      agent = ctx.agentLoop.agent(agentId)
    } catch {
      return
    }
    if (JSON.stringify(options) !== JSON.stringify(agent.lastRequest)) return
    const shape = rebuildLastRequest(agent.session.events())
    rebuilt.set(options, shape ? build(shape) : 'nothing to rebuild from the log')
  })
  ctx.on('llm/response', (options: GenerateOptions) => {
    const expected = rebuilt.get(options)
    if (expected === undefined) return
    wireReconstruction.checked++
    if (wireReconstruction.received.at(-1)?.body !== expected) {
      wireReconstruction.mismatches.push(`wire request ${wireReconstruction.checked}: the body rebuilt from the log differs from the bytes sent`)
    }
  })
}
