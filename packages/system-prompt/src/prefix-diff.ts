import type { ToolSchema } from 'dsh-core'
import { sectionAt, type SectionRange } from './render.ts'

/** One declared tool as a prefix comparison sees it. */
export interface PrefixTool {
  name: string
  /** Equal exactly when the two declarations are: the serialized declaration, or a hash of it. */
  digest: string
}

/** One side of a comparison: what a request carries before its messages, in wire order. */
export interface Prefix {
  /** The declared tools, in request order. */
  tools: readonly PrefixTool[]
  /** The rendered system prompt. */
  system: string
  /** Where each section sits in `system` (`sectionRanges`); absent when unknown (a session log keeps only text). */
  sections?: readonly SectionRange[]
}

/** Why the tool lists part at the first tool that differs. */
export type PrefixToolCause = 'tool_order' | 'tool_schema' | 'tool_added' | 'tool_removed'

/**
 * Why the system prompts part: the blamed section is on both sides (`section_changed`), only in b
 * (`section_added`) or only in a (`section_removed`); `system_changed` when the sections of one or both
 * sides are unknown, so only the byte (and, with one side known, its section there) can be named.
 */
export type PrefixSystemCause = 'section_changed' | 'section_added' | 'section_removed' | 'system_changed'

/** The first difference lies in the tool list. */
export interface ToolDifference {
  part: 'tools'
  cause: PrefixToolCause
  /** 0-based index of the first tool whose declaration differs. */
  index: number
  /** The tool at `index` on each side; undefined past the end of that side's list. */
  a: string | undefined
  b: string | undefined
}

/** The first difference lies in the system prompt (the tool lists are equal). */
export interface SystemDifference {
  part: 'system'
  cause: PrefixSystemCause
  /** UTF-8 byte offset of the first differing byte of the system prompt (may fall inside a character). */
  offset: number
  /** The section to blame for that byte; undefined when no known side has a section there. */
  section: string | undefined
}

export type PrefixDifference = ToolDifference | SystemDifference

/**
 * Where two prefixes first differ, and why; undefined when they are the same. The tools come first on the
 * wire, so a difference there is the first one whatever the system prompts hold.
 */
export function prefixDiff(a: Prefix, b: Prefix): PrefixDifference | undefined {
  return toolsDiff(a.tools, b.tools) ?? systemDiff(a, b)
}

/**
 * The first tool whose declaration differs. Its cause: the same name with other bytes is `tool_schema`;
 * b's tool missing from a is `tool_added`; else a's tool missing from b is `tool_removed`; both lists
 * holding both tools is `tool_order`. (The new side's tool is asked about first, as for sections.)
 */
export function toolsDiff(a: readonly PrefixTool[], b: readonly PrefixTool[]): ToolDifference | undefined {
  let index = 0
  while (index < a.length && index < b.length && a[index]!.name === b[index]!.name && a[index]!.digest === b[index]!.digest) index++
  if (index === a.length && index === b.length) return undefined
  const left = a[index]
  const right = b[index]
  const found = (cause: PrefixToolCause): ToolDifference => ({ part: 'tools', cause, index, a: left?.name, b: right?.name })
  if (!left) return found('tool_added')
  if (!right) return found('tool_removed')
  if (left.name === right.name) return found('tool_schema')
  if (!a.some((tool) => tool.name === right.name)) return found('tool_added')
  if (!b.some((tool) => tool.name === left.name)) return found('tool_removed')
  return found('tool_order')
}

/**
 * The first differing byte of two system prompts and the section to blame for it. Each side whose
 * sections are known names the section holding the byte (`sectionAt`: a separator belongs to the section
 * after it). When both name one, that is it. When they name different ones, a section was inserted or
 * removed there: a section present unchanged (same name, same bytes) on the other side was only pushed
 * along, so the blame goes to the other one.
 */
export function systemDiff(a: Pick<Prefix, 'system' | 'sections'>, b: Pick<Prefix, 'system' | 'sections'>): SystemDifference | undefined {
  if (a.system === b.system) return undefined
  const bytesA = Buffer.from(a.system)
  const bytesB = Buffer.from(b.system)
  const offset = firstDifference(bytesA, bytesB)
  const before = a.sections && sectionAt(a.sections, offset)
  const after = b.sections && sectionAt(b.sections, offset)
  const found = (cause: PrefixSystemCause, section?: SectionRange): SystemDifference => ({ part: 'system', cause, offset, section: section?.name })
  if (!a.sections || !b.sections) return found('system_changed', before ?? after)
  let blamed = after ?? before
  if (before && after && before.name !== after.name && holds(a.sections, bytesA, after, bytesB)) blamed = before
  if (!blamed) return found('system_changed')
  const inA = a.sections.some((range) => range.name === blamed.name)
  const inB = b.sections.some((range) => range.name === blamed.name)
  return found(inA && inB ? 'section_changed' : inA ? 'section_removed' : 'section_added', blamed)
}

/** `JSON.stringify(tool)` as the digest: the bytes the request carries for each tool. */
export function prefixTools(tools: readonly Pick<ToolSchema, 'name'>[]): PrefixTool[] {
  return tools.map((tool) => ({ name: tool.name, digest: JSON.stringify(tool) }))
}

/** UTF-8 byte offset of the first difference between two texts; undefined when they are equal. */
export function firstByteDifference(a: string, b: string): number | undefined {
  return a === b ? undefined : firstDifference(Buffer.from(a), Buffer.from(b))
}

function firstDifference(a: Buffer, b: Buffer): number {
  const length = Math.min(a.length, b.length)
  let offset = 0
  while (offset < length && a[offset] === b[offset]) offset++
  return offset
}

/** Whether `ranges` (over `bytes`) hold a section with `range`'s name and exactly its bytes in `rangeBytes`. */
function holds(ranges: readonly SectionRange[], bytes: Buffer, range: SectionRange, rangeBytes: Buffer): boolean {
  const text = rangeBytes.subarray(range.start, range.end)
  return ranges.some((other) => other.name === range.name && bytes.subarray(other.start, other.end).equals(text))
}
