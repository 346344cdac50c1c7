import type { Context } from 'cordis'
import { rebuildLastRequest } from 'dsh-agent-loop'
import type { GenerateOptions } from 'dsh-llm'

/** A request as the provider gets it: the body's bytes and the `anthropic-beta` header. */
export interface WireBytes {
  body: string
  beta?: string
}

/**
 * Every loop request of the benchmark conversation, rebuilt from the log at dispatch and compared; on the
 * Messages wire also its wire bytes, beta header included, against what the provider received (`wireChecked`).
 */
export const reconstruction = { checked: 0, wireChecked: 0, mismatches: [] as string[], pending: [] as { label: string; wire: WireBytes }[] }

/** What reaches an adapter's wire mapping from a request, deferred names and tool history included. */
const wire = (request: Partial<GenerateOptions> | undefined) => JSON.stringify({
  model: request?.model, system: request?.system, tools: request?.tools, deferredTools: request?.deferredTools, toolHistory: request?.toolHistory, messages: request?.messages,
})

/**
 * Checks, at each `llm/request` of agent `agentId`'s own steps (not its compaction requests), that
 * `rebuildLastRequest` over the session log as it stands equals the dispatched request byte for byte.
 */
export function watchReconstruction(ctx: Context, agentId: string, toWire?: (request: GenerateOptions) => WireBytes) {
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
    else if (toWire) reconstruction.pending.push({ label: `request ${reconstruction.checked}`, wire: toWire(rebuildLastRequest(agent.session.events())!) })
  })
}

/**
 * Checks each request rebuilt since the last call against what the provider received: the same body bytes
 * with the same beta header (or none) must be among `received`.
 */
export function settleWire(received: readonly { body: string; beta?: string }[]) {
  for (const { label, wire } of reconstruction.pending.splice(0)) {
    reconstruction.wireChecked++
    const same = received.find((entry) => entry.body === wire.body)
    if (!same) reconstruction.mismatches.push(`${label}: its wire body rebuilt from the log is not one the provider received`)
    else if (same.beta !== wire.beta) reconstruction.mismatches.push(`${label}: rebuilt with anthropic-beta ${JSON.stringify(wire.beta)}, sent with ${JSON.stringify(same.beta)}`)
  }
}
