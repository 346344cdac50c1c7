import { dirname, join } from 'node:path'
import type { PgInputOptions } from '../cli.ts'
import { PromptInspectorError } from '../errors.ts'
import { loadSession, type RawEvent } from './events.ts'

/** One child session (a fork, a fresh child, a side question) and its own cache use. */
export interface ViewChild {
  id: string
  mode: string
  description: string
  /** The parent's turn that forked it. */
  turn: number | null
  /** The parent's `agent` tool call that asked for it; null for a side question. */
  call: string | null
  /** Its own requests (after the history it copied from its parent). */
  requests: number
  /** Prompt tokens of those requests and the part the cache served; null while no request reported usage. */
  input: number | null
  cacheRead: number | null
  /** cacheRead / input; null without usage. */
  cachedShare: number | null
  /** Why the child's log could not be read (missing, unreadable); its figures are then empty. */
  missing: string | null
  children: ViewChild[]
}

/** Where a session sits among its forks: the session it was forked from (if any) and its children. */
export interface ViewTree {
  parent: { id: string; mode: string; description: string } | null
  children: ViewChild[]
}

/** Generations followed below the session shown: a deeper fork is still listed, its own children are not. */
const MAX_DEPTH = 8

/**
 * The session's place in its fork tree, from the logs alone: its parent (its first event, `fork/parent`) and each
 * child its `fork/child` events name, read from where the session itself was read (the same folder, `pg:`, or the
 * session folder of `cwd`), with each child's own requests and cache use; grandchildren likewise.
 */
export async function loadTree(input: string, events: readonly RawEvent[], pg: PgInputOptions, cwd = process.cwd()): Promise<ViewTree> {
  const first = events[0]
  const parent = first?.type === 'fork/parent' && typeof first.data.parent === 'string'
    ? { id: first.data.parent, mode: String(first.data.mode ?? ''), description: String(first.data.description ?? '') }
    : null
  return { parent, children: await childrenOf(input, events, pg, cwd, 1) }
}

async function childrenOf(input: string, events: readonly RawEvent[], pg: PgInputOptions, cwd: string, depth: number): Promise<ViewChild[]> {
  const children: ViewChild[] = []
  for (const event of ownEvents(events)) {
    if (event.type !== 'fork/child' || typeof event.data.child !== 'string') continue
    const child: ViewChild = {
      id: event.data.child,
      mode: String(event.data.mode ?? ''),
      description: String(event.data.description ?? ''),
      turn: Number.isSafeInteger(event.data.turn) ? event.data.turn : null,
      call: typeof event.data.call === 'string' ? event.data.call : null,
      requests: 0, input: null, cacheRead: null, cachedShare: null, missing: null, children: [],
    }
    const where = childInput(input, child.id)
    let loaded: RawEvent[]
    try {
      loaded = (await loadSession(where, pg, cwd)).events
    } catch (error) {
      if (!PromptInspectorError.is(error)) throw error
      child.missing = error.message
      children.push(child)
      continue
    }
    Object.assign(child, cacheUse(ownEvents(loaded)))
    if (depth < MAX_DEPTH) child.children = await childrenOf(where, loaded, pg, cwd, depth + 1)
    children.push(child)
  }
  return children
}

/** A child's events after the parent history its log opens with (`fork/parent`'s `copied`); a root's are all its own. */
export function ownEvents(events: readonly RawEvent[]): readonly RawEvent[] {
  const first = events[0]
  if (first?.type !== 'fork/parent') return events
  const copied = Number.isSafeInteger(first.data.copied) ? first.data.copied as number : 0
  return events.slice(1 + copied)
}

/** The requests among `events` and the share of their prompt tokens the cache served. */
function cacheUse(events: readonly RawEvent[]): Pick<ViewChild, 'requests' | 'input' | 'cacheRead' | 'cachedShare'> {
  let requests = 0
  let input: number | null = null
  let cacheRead: number | null = null
  for (const event of events) {
    if (event.type === 'step/start') requests++
    const usage = event.type === 'assistant/message' ? event.data.usage : undefined
    if (!usage || typeof usage.inputTokens !== 'number') continue
    input = (input ?? 0) + usage.inputTokens
    cacheRead = (cacheRead ?? 0) + (typeof usage.cacheReadTokens === 'number' ? usage.cacheReadTokens : 0)
  }
  return { requests, input, cacheRead, cachedShare: input ? cacheRead! / input : null }
}

/** How to read a child of the session read from `input`: beside a file, in the same database, or by id. */
function childInput(input: string, child: string): string {
  if (input.startsWith('pg:')) return `pg:${child}`
  if (input.endsWith('.jsonl') || input.includes('/')) return join(dirname(input), `${child}.jsonl`)
  return child
}

/** The tree as lines for the command's report: one per child, indented per generation. */
export function describeTree(tree: ViewTree): string[] {
  const lines: string[] = []
  if (tree.parent) lines.push(`forked from ${tree.parent.id} (${tree.parent.mode}: ${JSON.stringify(tree.parent.description)})`)
  const walk = (children: readonly ViewChild[], indent: string) => {
    for (const child of children) {
      const use = child.missing !== null ? `not readable: ${child.missing}`
        : `${child.requests} request(s), ${child.cachedShare === null ? 'no usage reported' : `${(child.cachedShare * 100).toFixed(1)}% cached`}`
      lines.push(`${indent}└ ${child.id} ${child.mode}: ${JSON.stringify(child.description)}: ${use}`)
      walk(child.children, `${indent}  `)
    }
  }
  if (tree.children.length) lines.push(`${countChildren(tree.children)} child session(s):`)
  walk(tree.children, '  ')
  return lines
}

function countChildren(children: readonly ViewChild[]): number {
  return children.reduce((sum, child) => sum + 1 + countChildren(child.children), 0)
}
