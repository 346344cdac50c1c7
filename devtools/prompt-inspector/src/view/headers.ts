import type { ToolSchema } from 'dsh-core'
import { PromptInspectorError } from '../errors.ts'
import type { ViewHeader } from './model.ts'

/**
 * The distinct request headers of a session. Each set of bytes is kept once and requests refer to it by
 * index, so a long session that logs the same header again (a resume) or reuses it for thousands of
 * requests costs one copy.
 */
export class HeaderTable {
  readonly headers: ViewHeader[] = []
  private readonly byBytes = new Map<string, number>()

  /** The index of the header logged by a `request/header` event's data, adding it when new. */
  add(seq: number, data: any, where: string): number {
    const header = data?.header
    if (!header || typeof header !== 'object') throw new PromptInspectorError('INPUT', `${where}: request/header seq ${seq}: data.header must be an object { model, system, tools }`)
    if (typeof header.model !== 'string') throw new PromptInspectorError('INPUT', `${where}: request/header seq ${seq}: data.header.model must be a string, got ${JSON.stringify(header.model)}`)
    if (typeof header.system !== 'string') throw new PromptInspectorError('INPUT', `${where}: request/header seq ${seq}: data.header.system must be a string`)
    const tools = toolsOf(header.tools, `${where}: request/header seq ${seq}`)
    const toolsText = tools ? JSON.stringify(tools) : header.tools as string
    const deferredTools: string[] = Array.isArray(header.deferredTools) ? header.deferredTools.filter((name: unknown) => typeof name === 'string') : []
    const key = JSON.stringify([header.model, header.system, toolsText, deferredTools])
    const known = this.byBytes.get(key)
    if (known !== undefined) return known
    const index = this.headers.length
    this.headers.push({
      seq,
      model: header.model,
      system: header.system,
      tools,
      deferredTools,
      toolsText,
      bytes: { tools: Buffer.byteLength(toolsText), system: Buffer.byteLength(header.system) },
    })
    this.byBytes.set(key, index)
    return index
  }
}

/** The prefix bytes a provider caches: the tools as sent, a newline, then the system prompt. */
export function prefixText(header: ViewHeader): string {
  return `${header.toolsText}\n${header.system}`
}

// A snapshot fixture stores "{{tools}}" instead of the list; it is shown as logged.
function toolsOf(value: unknown, where: string): ToolSchema[] | null {
  if (typeof value === 'string') return null
  if (!Array.isArray(value)) throw new PromptInspectorError('INPUT', `${where}: data.header.tools must be a list of tools, got ${JSON.stringify(value)}`)
  const bad = value.findIndex((tool) => !tool || typeof tool !== 'object' || typeof tool.name !== 'string')
  if (bad >= 0) throw new PromptInspectorError('INPUT', `${where}: data.header.tools[${bad}] must be a tool { name, description, parameters }`)
  return value as ToolSchema[]
}
