import type { Context } from 'cordis'
import { rebuildLastRequest } from 'dsh-agent-loop'
import type { GenerateOptions } from 'dsh-llm'

/** Every loop request of the benchmark conversation, rebuilt from the log at dispatch and compared. */
export const reconstruction = { checked: 0, mismatches: [] as string[] }

/** What reaches an adapter's wire mapping from a request, deferred names and tool history included. */
const wire = (request: Partial<GenerateOptions> | undefined) => JSON.stringify({
  model: request?.model, system: request?.system, tools: request?.tools, deferredTools: request?.deferredTools, toolHistory: request?.toolHistory, messages: request?.messages,
})

/**
 * Checks, at each `llm/request` of agent `agentId`'s own steps (not its compaction requests), that
 * `rebuildLastRequest` over the session log as it stands equals the dispatched request byte for byte.
 */
export function watchReconstruction(ctx: Context, agentId: string) {
  ctx.on('llm/request', (options: GenerateOptions) => {
    let agent
    try {
      agent = ctx.agentLoop.agent(agentId)
    } catch {
      return
    }
    const sent = wire(options)
    if (sent !== wire(agent.lastRequest)) return
    reconstruction.checked++
    const rebuilt = wire(rebuildLastRequest(agent.session.events()))
    if (rebuilt !== sent) reconstruction.mismatches.push(`request ${reconstruction.checked}: rebuilt from the log differs from the dispatched request`)
  })
}
