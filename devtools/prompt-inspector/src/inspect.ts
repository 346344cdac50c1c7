import type { Context } from 'cordis'
import { AppBootError, boot, readAppFile } from 'dsh-app-boot'
import type { BootedApp } from 'dsh-app-boot'
import type {} from 'dsh-agent-loop'
import { SystemPromptError } from 'dsh-system-prompt'
import { renderContextSections, renderPrompt, type ContextSnapshotSection } from 'dsh-system-prompt/bytes'
import type SystemPrompt from 'dsh-system-prompt'
import type { AssembleContext } from 'dsh-system-prompt'
import type { RequestHeader } from 'dsh-session'
import { DEFAULT_SETTLE_MS } from './cli.ts'
import { PromptInspectorError } from './errors.ts'
import { fingerprint, type Fingerprint } from './fingerprint.ts'
import { findOwners } from './owners.ts'
import { explainPositions, type ToolPosition } from './reasons.ts'
import { resolverFor } from './resolve.ts'
import { renderSections, type RenderedSection } from './sections.ts'
import { settle, type SettleReport } from './settle.ts'

/** What `ctx.systemPrompt.inspect()` reports. */
type PromptInspection = Awaited<ReturnType<SystemPrompt['inspect']>>

export interface InspectOptions {
  /** The app file (a YAML list of loader entries). */
  file: string
  /** Quiet time after the last tool or prompt change before assembling; default 200 ms. */
  settleMs?: number
}

/** One tool of an inspected prompt: where it stands, why, and who contributed it. */
export interface InspectedTool extends ToolPosition {
  /** The plugin that registered or provided the tool (its Cordis name). */
  plugin: string
  /** The app-file entry that plugin runs under. */
  entry: string | null
  /** The MCP server the tool came from (a `dsh-tools-mcp` tool), else null. */
  server: string | null
  sha256: string
}

/** Everything `dsh-prompt inspect` reports about one app file. */
export interface AppInspection {
  file: string
  context: AssembleContext
  toolOrder: string[] | null
  sections: RenderedSection[]
  /** The runtime context, rendered: sent after the prefix as a message, never in the header. */
  runtimeContext: ContextSnapshotSection[]
  tools: InspectedTool[]
  /** Canonical tools a `system-prompt/assemble` listener dropped. */
  removedByListeners: string[]
  header: RequestHeader
  fingerprint: Fingerprint
  settle: SettleReport
}

/**
 * Boots an app file without serving it, waits for delayed registrations, assembles once with the agent
 * loop's context and explains the result. Always disposes the app. A boot failure is a `BOOT` error; an
 * assembly failure (say, `toolOrder` naming an unregistered tool) is `MISCONFIGURED` with the message a
 * turn would end with.
 */
export async function inspectApp(options: InspectOptions): Promise<AppInspection> {
  return withSettledApp(options, (app, report) => explain(app, options.file, report))
}

/**
 * Boots an app file without serving it, waits until it settles, runs `use` on it and disposes it, however
 * `use` ends. A boot failure is a `BOOT` error.
 */
export async function withSettledApp<T>(options: InspectOptions & { text?: string }, use: (app: BootedApp, report: SettleReport) => Promise<T>): Promise<T> {
  let app: BootedApp
  try {
    app = await boot({ file: options.file, text: options.text, resolve: resolverFor(options.file), logLevel: logLevel(), inspection: true })
  } catch (error) {
    if (AppBootError.is(error)) throw new PromptInspectorError('BOOT', error.message, { cause: error })
    throw error
  }
  try {
    // every delayed registration's timer was started before boot() resolved, so now bounds them all
    const report = await settle(app.ctx, options.settleMs ?? DEFAULT_SETTLE_MS, Date.now())
    return await use(app, report)
  } finally {
    await app.dispose()
  }
}

/**
 * Reads an app file once, for a command that boots it more than once (`lint`): a FIFO can be read only
 * once, so every boot then parses this text. Unreadable is a `BOOT` error.
 */
export async function readApp(file: string): Promise<string> {
  try {
    return await readAppFile(file)
  } catch (error) {
    if (AppBootError.is(error)) throw new PromptInspectorError('BOOT', error.message, { cause: error })
    throw error
  }
}

/** The context the agent loop assembles with: `{ model, cwd }` of its config, or `{}` without a loop. */
export function loopContext(ctx: Context): AssembleContext {
  const loop = ctx.get('agentLoop')
  return loop ? { model: loop.config.model, cwd: loop.cwd } : {}
}

async function explain(app: BootedApp, file: string, report: SettleReport): Promise<AppInspection> {
  const ctx: Context = app.ctx
  const systemPrompt = ctx.get('systemPrompt')
  if (!systemPrompt) {
    throw new PromptInspectorError('MISCONFIGURED', `${file}: no entry provides the systemPrompt service, so there is no prompt to inspect`)
  }
  const context = loopContext(ctx)
  let inspection: PromptInspection
  let system: string
  let sections: RenderedSection[]
  let runtimeContext: ContextSnapshotSection[]
  try {
    inspection = await systemPrompt.inspect(context)
    system = renderPrompt(inspection.assembly)
    sections = renderSections(inspection.assembly, inspection.sectionOrders)
    runtimeContext = renderContextSections(inspection.assembly)
  } catch (error) {
    if (SystemPromptError.is(error)) throw new PromptInspectorError('MISCONFIGURED', error.message, { cause: error })
    throw error
  }
  const { assembly, canonical, toolOrder } = inspection
  const header: RequestHeader = { model: context.model ?? '', system, tools: assembly.tools }
  const print = fingerprint(header)
  const owners = findOwners(ctx, app.entries, inspection.owners)
  const { tools, removed } = explainPositions(assembly.tools, canonical, toolOrder)
  return {
    file,
    context,
    toolOrder: toolOrder ? [...toolOrder] : null,
    sections,
    runtimeContext,
    tools: tools.map((tool, index) => {
      const owner = owners.get(tool.name)
      return { ...tool, plugin: owner?.plugin ?? 'a system-prompt/assemble listener', entry: owner?.entry ?? null, server: owner?.server ?? null, sha256: print.perTool[index].sha256 }
    }),
    removedByListeners: removed,
    header,
    fingerprint: print,
    settle: report,
  }
}

/** The inspector keeps stderr for its own one-line errors unless `DSH_LOG_LEVEL` asks for more. */
function logLevel(): Parameters<typeof boot>[0]['logLevel'] {
  return (process.env.DSH_LOG_LEVEL || 'warn') as Parameters<typeof boot>[0]['logLevel']
}
