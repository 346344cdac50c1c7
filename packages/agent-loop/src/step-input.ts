import type { Context } from 'cordis'
import type { RequestHeader } from 'dsh-session'
import { renderContextSections, renderPrompt, type ContextSnapshotSection } from 'dsh-system-prompt/bytes'

/** What a step sends before its history: the header, and the runtime context that goes after it. */
export interface StepInput {
  header: RequestHeader
  contexts: ContextSnapshotSection[]
}

/**
 * Assembles the step's system prompt and tools for `agentId`. The deferred-tool set comes from the live
 * registry and decides `defer_loading` on the wire, so it is part of the header (in tool order, present
 * only when non-empty): a change of it logs a new header, and the log alone rebuilds the dispatched request.
 */
export async function assembleStep(
  services: { systemPrompt: Context['systemPrompt']; tools: Context['tools'] },
  query: { agentId: string; model: string; cwd: string | undefined; signal: AbortSignal },
): Promise<StepInput> {
  const { agentId, model, cwd, signal } = query
  const assembly = await services.systemPrompt.assemble({ scope: agentId, signal, model, cwd, agentId })
  const registered = services.tools.deferredNames()
  const deferred = registered.length ? assembly.tools.map((tool) => tool.name).filter((name) => registered.includes(name)) : []
  const header: RequestHeader = { model, system: renderPrompt(assembly), tools: assembly.tools, ...(deferred.length ? { deferredTools: deferred } : {}) }
  return { header, contexts: assembly.contexts.length ? renderContextSections(assembly) : [] }
}
