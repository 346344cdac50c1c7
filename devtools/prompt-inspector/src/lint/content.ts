import type { AssemblySnapshot, BootSnapshot } from './snapshot.ts'
import type { LintFinding } from './types.ts'
import { findVolatile, type VolatileMatch } from './volatile.ts'

const KIND_WORDS: Record<VolatileMatch['kind'], string> = { date: 'a date', time: 'a time of day', 'random-id': 'a random id', 'temp-path': 'a path under a temp folder' }
const MOVE = 'Keep it out of the cached prefix; a runtime context (systemPrompt.context) carries such values after it.'

/** Spans of `text` covered by `needle`, so the cwd finding is not reported a second time as a temp path. */
function spans(text: string, needle: string | undefined): [number, number][] {
  if (!needle || needle.length < 2) return []
  const found: [number, number][] = []
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) found.push([at, at + needle.length])
  return found
}

const outside = (match: VolatileMatch, covered: [number, number][]) => !covered.some(([start, end]) => match.index < end && match.index + match.text.length > start)

/**
 * Volatile text in the sections and tool descriptions of one assembly, the working directory inside the
 * prefix, and a tool block over `maxToolBytes`.
 */
export function checkContent(assembly: AssemblySnapshot, boot: BootSnapshot, maxToolBytes: number): LintFinding[] {
  const findings: LintFinding[] = []
  const cwd = typeof boot.context.cwd === 'string' ? boot.context.cwd : undefined
  for (const section of assembly.sections) {
    const covered = spans(section.text, cwd)
    if (covered.length) findings.push(cwdFinding(section.name, section.variables.includes('cwd') && assembly.variables.cwd === cwd, cwd!))
    for (const match of findVolatile(section.text).filter((match) => outside(match, covered))) {
      // name the variable whose value carries the text when there is one: that is where to fix it
      const variable = section.variables.find((name) => assembly.variables[name]?.includes(match.text))
      findings.push({
        rule: 'volatile-text',
        source: variable ? { kind: 'variable', name: variable } : { kind: 'section', name: section.name },
        message: `${KIND_WORDS[match.kind]} ${JSON.stringify(match.text)} in section ${JSON.stringify(section.name)}${variable ? ` (from {{${variable}}})` : ''}`,
        advice: `It will differ on another day, run or machine, and each value is its own cached prefix. ${MOVE}`,
        detail: { kind: match.kind, text: match.text, section: section.name },
      })
    }
  }
  for (const tool of assembly.tools) {
    const owner = boot.owners.get(tool.name)
    const source = { kind: 'tool' as const, name: tool.name, entry: owner?.entry ?? null, server: owner?.server ?? null }
    const covered = spans(tool.description, cwd)
    if (covered.length) {
      findings.push({
        rule: 'cwd-in-prefix', source,
        message: `the working directory ${JSON.stringify(cwd)} is in the description of tool ${JSON.stringify(tool.name)}`,
        advice: 'Each folder then gets its own cached prefix: a second checkout or another user never reads this one. Describe the tool without the path.',
      })
    }
    for (const match of findVolatile(tool.description).filter((match) => outside(match, covered))) {
      findings.push({
        rule: 'volatile-tool-description', source,
        message: `${KIND_WORDS[match.kind]} ${JSON.stringify(match.text)} in the description of tool ${JSON.stringify(tool.name)}${owner?.server ? ` (MCP server ${JSON.stringify(owner.server)})` : ''}`,
        advice: 'The tool block is the front of the prefix: a value that changes there misses the cache for the whole request.',
        detail: { kind: match.kind, text: match.text },
      })
    }
  }
  const toolBytes = Buffer.byteLength(JSON.stringify(assembly.tools))
  if (toolBytes > maxToolBytes) {
    const top = assembly.tools
      .map((tool) => ({ name: tool.name, bytes: Buffer.byteLength(JSON.stringify(tool)), server: boot.owners.get(tool.name)?.server ?? null }))
      .sort((a, b) => b.bytes - a.bytes || (a.name < b.name ? -1 : 1))
      .slice(0, 5)
    findings.push({
      rule: 'tool-block-too-large',
      source: { kind: 'tool', name: top[0]!.name, server: top[0]!.server },
      message: `the tool block is ${toolBytes} bytes, over the ${maxToolBytes} allowed; largest: ${top.map((tool) => `${tool.name} (${tool.bytes} B)`).join(', ')}`,
      advice: 'Every request carries (and every cache miss pays for) the whole block: shorten descriptions, drop unused tools, or defer rarely used ones.',
      detail: { bytes: toolBytes, limit: maxToolBytes, top },
    })
  }
  return findings
}

function cwdFinding(section: string, viaVariable: boolean, cwd: string): LintFinding {
  return {
    rule: 'cwd-in-prefix',
    source: viaVariable ? { kind: 'variable', name: 'cwd' } : { kind: 'section', name: section },
    message: `the working directory ${JSON.stringify(cwd)} is in the cached prefix (section ${JSON.stringify(section)}${viaVariable ? ', through {{cwd}}' : ''})`,
    advice: 'Each folder gets its own cached prefix: a second checkout, a worktree or a teammate never reads this one. Put the folder in a runtime context (systemPrompt.context), which reaches the model after the prefix.',
    detail: { cwd, section },
  }
}
