import { listNames } from 'dsh-core'
import type { PrefixDiff } from './diff.ts'
import type { AppInspection } from './inspect.ts'
import type { PrefixSource } from './sources.ts'

const short = (hash: string) => hash.slice(0, 12)

/** Human text for `dsh-prompt inspect`. */
export function renderInspection(inspection: AppInspection): string {
  const { context, sections, tools, toolOrder, fingerprint, settle } = inspection
  const out: string[] = []
  out.push(`app: ${inspection.file}`)
  out.push(`model: ${context.model ?? '(no agent loop)'}   cwd: ${context.cwd ?? '(none)'}`)
  const ready = settle.readyMs === null ? '' : `app ready in ${settle.readyMs} ms, `
  const starting = settle.starting.length ? `; still starting: ${settle.starting.map((entry) => `${entry.id} (${entry.name})`).join(', ')}` : ''
  out.push(`settled: ${ready}${settle.waitedMs} ms after boot${settle.timedOut ? ' (gave up: registrations kept changing or an entry kept starting)' : ''}${starting}`)
  out.push('')
  const system = inspection.header.system
  out.push(`System prompt: ${sections.length} section(s), ${Buffer.byteLength(system)} bytes, sha256 ${short(fingerprint.system)}`)
  sections.forEach((section, index) => {
    const order = section.order === null ? 'added by a system-prompt/assemble listener' : `order ${section.order}`
    out.push(`── section ${index + 1}/${sections.length}: ${section.name} (${order}) sha256 ${short(section.sha256)}`)
    out.push(section.text)
  })
  out.push('')
  if (inspection.runtimeContext.length) {
    out.push(`Runtime context: ${inspection.runtimeContext.length} context(s), after the prefix: a message when it changes, not in the header`)
    for (const { name, text } of inspection.runtimeContext) {
      out.push(`── ${name}`)
      out.push(text)
    }
    out.push('')
  }
  const policy = toolOrder ? `toolOrder: ${listNames(toolOrder)}` : 'no toolOrder: code-unit lexicographic order'
  out.push(`Tools: ${tools.length} (${policy}), sha256 ${short(fingerprint.tools)}`)
  const nameWidth = Math.max(4, ...tools.map((tool) => tool.name.length))
  const ownerWidth = Math.max(5, ...tools.map((tool) => ownerOf(tool).length))
  const numberWidth = String(tools.length).length
  for (const tool of tools) {
    out.push(`  ${String(tool.position).padStart(numberWidth)}. ${tool.name.padEnd(nameWidth)}  ${ownerOf(tool).padEnd(ownerWidth)}  ${tool.detail}`)
  }
  if (tools.length === 0) out.push('  (none)')
  for (const name of inspection.removedByListeners) out.push(`  removed by a system-prompt/assemble listener: ${name}`)
  out.push('')
  out.push('Fingerprint (sha256):')
  out.push(`  header  ${fingerprint.header}  JSON.stringify({ model, system, tools }), as the request/header event logs it`)
  out.push(`  prefix  ${fingerprint.prefix}  JSON.stringify(tools) + "\\n" + system`)
  out.push(`  model   ${fingerprint.model}`)
  out.push(`  system  ${fingerprint.system}`)
  out.push(`  tools   ${fingerprint.tools}`)
  return `${out.join('\n')}\n`
}

function ownerOf(tool: AppInspection['tools'][number]): string {
  const owner = tool.entry && tool.entry !== tool.plugin ? `${tool.plugin} [${tool.entry}]` : tool.plugin
  return tool.server === null ? owner : `${owner} MCP server ${JSON.stringify(tool.server)}`
}

/** Human text for `dsh-prompt diff`. */
export function renderDiff(a: PrefixSource, b: PrefixSource, diff: PrefixDiff): string {
  const out: string[] = []
  out.push(`a: ${describeSource(a)}, ${diff.bytes.a} bytes, sha256 ${short(diff.sha256.a)}`)
  out.push(`b: ${describeSource(b)}, ${diff.bytes.b} bytes, sha256 ${short(diff.sha256.b)}`)
  out.push('prefix = JSON.stringify(tools) + "\\n" + system')
  const { divergence } = diff
  if (!divergence) {
    out.push(`identical: both prefixes are the same ${diff.bytes.a} bytes`)
  } else {
    out.push(`diverge at byte ${divergence.offset} (${divergence.part}): ${divergence.summary}`)
    out.push(`  a: ${JSON.stringify(divergence.context.a)}`)
    out.push(`  b: ${JSON.stringify(divergence.context.b)}`)
    const { added, removed, changed, reordered } = diff.tools
    const notes = [
      added.length ? `added ${listNames(added)}` : '',
      removed.length ? `removed ${listNames(removed)}` : '',
      changed.length ? `schema changed ${listNames(changed)}` : '',
      reordered ? 'common tools reordered' : '',
    ].filter(Boolean)
    if (notes.length) out.push(`tools a → b: ${notes.join('; ')}`)
  }
  if (!diff.model.same) out.push(`note: the models differ (a: ${diff.model.a}, b: ${diff.model.b}); provider caches are per model`)
  return `${out.join('\n')}\n`
}

function describeSource(source: PrefixSource): string {
  if (source.kind === 'app') return `${source.input} (app file, model ${source.header.model || '(none)'})`
  const event = source.event!
  const where = event.turn === null ? '' : `, turn ${event.turn} step ${event.step}`
  const at = event.line === null ? '' : ` at line ${event.line}`
  const kind = event.line === null ? 'PostgreSQL session' : 'session log'
  return `${source.input} (${kind}, request/header seq ${event.seq}${at}${where}, reason ${event.reason ?? '?'})`
}
