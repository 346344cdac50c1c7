import type { ToolSchema } from 'dsh-core'
import { sectionAt, sha256 } from 'dsh-system-prompt'
import { serializePrefix } from './fingerprint.ts'
import type { RenderedSection } from './sections.ts'
import type { PrefixSource } from './sources.ts'

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
    /** The section holding the offset on each side, when that side is an app file. */
    section: { a: string | null; b: string | null }
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

/** Compares the prefixes `JSON.stringify(tools) + "\n" + system` of two sources byte by byte. */
export function diffPrefixes(a: PrefixSource, b: PrefixSource): PrefixDiff {
  const prefixA = serializePrefix(a.header)
  const prefixB = serializePrefix(b.header)
  const bytesA = Buffer.from(prefixA, 'utf8')
  const bytesB = Buffer.from(prefixB, 'utf8')
  const offset = firstDifference(bytesA, bytesB)
  return {
    identical: offset < 0,
    bytes: { a: bytesA.length, b: bytesB.length },
    sha256: { a: sha256(prefixA), b: sha256(prefixB) },
    model: { a: a.header.model, b: b.header.model, same: a.header.model === b.header.model },
    tools: toolSetChanges(a.header.tools, b.header.tools),
    divergence: offset < 0 ? null : locate(a, b, prefixA, prefixB, offset),
  }
}

function firstDifference(a: Buffer, b: Buffer): number {
  const length = Math.min(a.length, b.length)
  for (let index = 0; index < length; index++) if (a[index] !== b[index]) return index
  return a.length === b.length ? -1 : length
}

function locate(a: PrefixSource, b: PrefixSource, prefixA: string, prefixB: string, offset: number): Divergence {
  let at = 0
  while (at < prefixA.length && at < prefixB.length && prefixA[at] === prefixB[at]) at++
  const context = { a: around(prefixA, at), b: around(prefixB, at) }
  const toolsA = JSON.stringify(a.header.tools)
  if (toolsA !== JSON.stringify(b.header.tools)) {
    const tool = firstToolDifference(a.header.tools, b.header.tools)
    return { offset, part: 'tools', tool, system: null, context, summary: describeTool(tool) }
  }
  const inSystem = at - toolsA.length - 1
  const before = a.header.system.slice(0, inSystem)
  const lineStart = before.lastIndexOf('\n') + 1
  const systemOffset = offset - Buffer.byteLength(toolsA) - 1
  const system = {
    offset: systemOffset,
    line: before.split('\n').length,
    column: inSystem - lineStart + 1,
    paragraph: before.split('\n\n').length,
    section: {
      a: a.sections ? sectionNameAt(a.sections, systemOffset) : null,
      b: b.sections ? sectionNameAt(b.sections, systemOffset) : null,
    },
  }
  return { offset, part: 'system', tool: null, system, context, summary: describeSystem(system) }
}

function firstToolDifference(a: readonly ToolSchema[], b: readonly ToolSchema[]): NonNullable<Divergence['tool']> {
  let index = 0
  while (index < a.length && index < b.length && JSON.stringify(a[index]) === JSON.stringify(b[index])) index++
  const left = a[index]
  const right = b[index]
  const names = { index: index + 1, a: left?.name ?? null, b: right?.name ?? null }
  if (!left) return { ...names, cause: 'added', fields: [] }
  if (!right) return { ...names, cause: 'removed', fields: [] }
  if (left.name === right.name) return { ...names, cause: 'schema', fields: changedFields(left, right) }
  if (!b.some((tool) => tool.name === left.name)) return { ...names, cause: 'removed', fields: [] }
  if (!a.some((tool) => tool.name === right.name)) return { ...names, cause: 'added', fields: [] }
  return { ...names, cause: 'order', fields: [] }
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
  const { a, b } = system.section
  const where = `system prompt byte ${system.offset} (line ${system.line}, column ${system.column}, paragraph ${system.paragraph})`
  if (a === null && b === null) return where
  if (a === b || b === null) return `${where}, in section "${a}"`
  if (a === null) return `${where}, in section "${b}"`
  return `${where}, in section "${a}" of a and "${b}" of b`
}

function around(text: string, at: number): string {
  const start = Math.max(0, at - CONTEXT_CHARS)
  return `${start > 0 ? '…' : ''}${text.slice(start, at + CONTEXT_CHARS)}${at + CONTEXT_CHARS < text.length ? '…' : ''}`
}

/** The section holding byte `offset` of the system prompt; a separator reads as the end of the section before it. */
function sectionNameAt(sections: readonly RenderedSection[], offset: number): string | null {
  const ranges = sections.map((section) => ({ name: section.name, start: section.offset, end: section.offset + Buffer.byteLength(section.text) }))
  return sectionAt(ranges, offset, 'preceding')?.name ?? null
}
