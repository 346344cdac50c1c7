import type { ToolSchema } from 'dsh-core'
import { firstByteDifference, prefixDiff, prefixTools, sha256 } from 'dsh-system-prompt/bytes'
import type { systemDiff, toolsDiff } from 'dsh-system-prompt/bytes'
import { serializePrefix } from './fingerprint.ts'
import type { PrefixSource } from './sources.ts'

// The shapes of dsh-system-prompt's prefix differences, read off its functions.
type Prefix = Parameters<typeof prefixDiff>[0]
type ToolDifference = NonNullable<ReturnType<typeof toolsDiff>>
type SystemDifference = NonNullable<ReturnType<typeof systemDiff>>
type PrefixToolCause = ToolDifference['cause']
type PrefixSystemCause = SystemDifference['cause']

export type ToolCause = 'order' | 'schema' | 'added' | 'removed'

/** Where two prefixes part and what makes them part. */
export interface Divergence {
  /** First differing byte (UTF-8) of the serialized prefixes, 0-based. */
  offset: number
  part: 'tools' | 'system'
  /** Set when the tools differ: the first tool (1-based index) whose bytes differ, and why. */
  tool: { index: number; a: string | null; b: string | null; cause: ToolCause; fields: string[] } | null
  /** Set when the tools are equal and the system prompts differ. */
  system: {
    /** Byte offset into the system prompt. */
    offset: number
    line: number
    column: number
    /** 1-based paragraph (text between blank lines). */
    paragraph: number
    /**
     * The section to blame (`prefixDiff` of `dsh-system-prompt`: a separator belongs to the section after it,
     * an inserted or removed section is named rather than the one it pushed along); null when no side that
     * is an app file has a section there.
     */
    section: string | null
    /** `section_changed`, `section_added` (only in b), `section_removed` (only in a), or `system_changed` (a side's sections unknown). */
    cause: PrefixSystemCause
  } | null
  /** Up to 40 characters on either side of the divergence, from each prefix. */
  context: { a: string; b: string }
  summary: string
}

/** The comparison of two request prefixes. */
export interface PrefixDiff {
  identical: boolean
  bytes: { a: number; b: number }
  sha256: { a: string; b: string }
  model: { a: string; b: string; same: boolean }
  /** Whole-list differences of the tools, beyond the first divergence. */
  tools: { added: string[]; removed: string[]; changed: string[]; reordered: boolean }
  divergence: Divergence | null
}

const CONTEXT_CHARS = 40

/**
 * Compares the prefixes `JSON.stringify(tools) + "\n" + system` of two sources byte by byte; where and why
 * they part is `dsh-system-prompt`'s `prefixDiff`, the answer `dsh-cache-break-detector` gives too.
 */
export function diffPrefixes(a: PrefixSource, b: PrefixSource): PrefixDiff {
  const prefixA = serializePrefix(a.header)
  const prefixB = serializePrefix(b.header)
  const found = prefixDiff(prefixOf(a), prefixOf(b))
  return {
    identical: found === undefined,
    bytes: { a: Buffer.byteLength(prefixA), b: Buffer.byteLength(prefixB) },
    sha256: { a: sha256(prefixA), b: sha256(prefixB) },
    model: { a: a.header.model, b: b.header.model, same: a.header.model === b.header.model },
    tools: toolSetChanges(a.header.tools, b.header.tools),
    divergence: found === undefined ? null : locate(a, b, prefixA, prefixB, found),
  }
}

/** A source as `prefixDiff` reads it: each tool's JSON, the system prompt, and an app file's sections. */
function prefixOf(source: PrefixSource): Prefix {
  const { tools, system } = source.header
  if (!source.sections) return { tools: prefixTools(tools), system }
  const sections = source.sections.map(({ name, text, offset }) => ({ name, start: offset, end: offset + Buffer.byteLength(text) }))
  return { tools: prefixTools(tools), system, sections }
}

function locate(a: PrefixSource, b: PrefixSource, prefixA: string, prefixB: string, found: ToolDifference | SystemDifference): Divergence {
  let at = 0
  while (at < prefixA.length && at < prefixB.length && prefixA[at] === prefixB[at]) at++
  const offset = firstByteDifference(prefixA, prefixB)!
  const context = { a: around(prefixA, at), b: around(prefixB, at) }
  if (found.part === 'tools') {
    const tool = describeToolDifference(found, a.header.tools, b.header.tools)
    return { offset, part: 'tools', tool, system: null, context, summary: describeTool(tool) }
  }
  const inSystem = at - JSON.stringify(a.header.tools).length - 1
  const before = a.header.system.slice(0, inSystem)
  const lineStart = before.lastIndexOf('\n') + 1
  const system = {
    offset: found.offset,
    line: before.split('\n').length,
    column: inSystem - lineStart + 1,
    paragraph: before.split('\n\n').length,
    section: found.section ?? null,
    cause: found.cause,
  }
  return { offset, part: 'system', tool: null, system, context, summary: describeSystem(system) }
}

const TOOL_CAUSES: Record<PrefixToolCause, ToolCause> = { tool_order: 'order', tool_schema: 'schema', tool_added: 'added', tool_removed: 'removed' }

function describeToolDifference(found: ToolDifference, a: readonly ToolSchema[], b: readonly ToolSchema[]): NonNullable<Divergence['tool']> {
  const cause = TOOL_CAUSES[found.cause]
  const fields = cause === 'schema' ? changedFields(a[found.index]!, b[found.index]!) : []
  return { index: found.index + 1, a: found.a ?? null, b: found.b ?? null, cause, fields }
}

function changedFields(a: object, b: object): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
  const fields = keys.filter((key) => JSON.stringify((a as any)[key]) !== JSON.stringify((b as any)[key]))
  return fields.length ? fields : ['key order']
}

function toolSetChanges(a: readonly ToolSchema[], b: readonly ToolSchema[]): PrefixDiff['tools'] {
  const inA = new Map(a.map((tool) => [tool.name, JSON.stringify(tool)]))
  const inB = new Map(b.map((tool) => [tool.name, JSON.stringify(tool)]))
  const common = (list: readonly ToolSchema[], other: Map<string, string>) => list.map((tool) => tool.name).filter((name) => other.has(name))
  const commonA = common(a, inB)
  const commonB = common(b, inA)
  return {
    added: b.map((tool) => tool.name).filter((name) => !inA.has(name)),
    removed: a.map((tool) => tool.name).filter((name) => !inB.has(name)),
    changed: commonA.filter((name) => inA.get(name) !== inB.get(name)),
    reordered: commonA.some((name, index) => commonB[index] !== name),
  }
}

function describeTool(tool: NonNullable<Divergence['tool']>): string {
  const at = `tool #${tool.index}`
  switch (tool.cause) {
    case 'added':
      return `${at}: "${tool.b}" in b is not in a (added)${tool.a ? `; a has "${tool.a}" there` : ''}`
    case 'removed':
      return `${at}: "${tool.a}" in a is not in b (removed)${tool.b ? `; b has "${tool.b}" there` : ''}`
    case 'schema':
      return `${at}: "${tool.a}" has a different schema (${tool.fields.join(', ')})`
    case 'order':
      return `${at}: a has "${tool.a}", b has "${tool.b}" (order: both lists have both tools)`
  }
}

function describeSystem(system: NonNullable<Divergence['system']>): string {
  const where = `system prompt byte ${system.offset} (line ${system.line}, column ${system.column}, paragraph ${system.paragraph})`
  if (system.section === null) return where
  const how = system.cause === 'section_added' ? ' (only in b)' : system.cause === 'section_removed' ? ' (only in a)' : ''
  return `${where}, in section "${system.section}"${how}`
}

function around(text: string, at: number): string {
  const start = Math.max(0, at - CONTEXT_CHARS)
  return `${start > 0 ? '…' : ''}${text.slice(start, at + CONTEXT_CHARS)}${at + CONTEXT_CHARS < text.length ? '…' : ''}`
}
