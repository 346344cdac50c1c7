import { FrozenList, baseOf, derive, extendList } from 'dsh-core'
import type { ChatMessage, ReadonlyList, ToolSchema, ToolHistorySnapshot, ToolHistoryUpdate } from 'dsh-core'
import { LlmError } from './error.ts'
import type { GenerateOptions, ToolUpdateMode } from './types.ts'

/** The tool-registry developer message of a conversation (dsh-core's `ChatMessage` with `role: 'developer'`). */
type ToolUpdateMessage = Extract<ChatMessage, { role: 'developer' }>

/** The tool-update modes a route can declare. */
export const TOOL_UPDATE_MODES: readonly ToolUpdateMode[] = ['none', 'append', 'addition-only', 'in-history']

/** A tool as a route declares it; `deferred` asks the provider to load its schema only when announced. */
export interface ToolDeclaration {
  definition: ToolSchema
  deferred: boolean
}

/** A tool-registry update as the model sees it: definitions made available, names taken away. */
export interface ToolUpdateNotice {
  role: 'tool-update'
  added: ToolSchema[]
  removed: string[]
}

/** History as a route sends it: developer tool-registry messages become notices or disappear. */
export type ProjectedMessage = Exclude<ChatMessage, ToolUpdateMessage> | ToolUpdateNotice

/** Why a history-capable route fell back to the current declarations without notices. */
export type ProjectionFallback = 'missing-history' | 'incomplete-prefix' | 'inconsistent-history'

/** What an adapter sends for one request: its tool declarations and its history. */
export interface ToolProjection {
  mode: ToolUpdateMode
  declarations: ToolDeclaration[]
  /** In order; a `FrozenList` sharing the history's backing array where nothing was dropped or rewritten. */
  messages: ReadonlyList<ProjectedMessage>
  /** Set when a history-capable mode could not use `options.toolHistory`. */
  fallback?: ProjectionFallback
}

const plain = new WeakMap<readonly ToolSchema[], ToolDeclaration[]>()

/**
 * The declarations of a tool list with nothing deferred: one frozen array per (frozen) list, since the
 * loop sends the same logged tool list on every step until the header changes.
 */
function plainDeclarations(tools: readonly ToolSchema[]): ToolDeclaration[] {
  let declarations = plain.get(tools)
  if (!declarations) {
    declarations = Object.freeze(tools.map((definition) => Object.freeze({ definition, deferred: false }))) as ToolDeclaration[]
    if (Object.isFrozen(tools)) plain.set(tools, declarations)
  }
  return declarations
}

/**
 * Projects the effective tools and logical tool-registry messages of `options` onto what a route with
 * tool-update capability `mode` should send. Pure and deterministic: the result depends only on the
 * arguments, which are not modified.
 *
 * - `none`: declarations are `options.tools`; developer messages are dropped.
 * - `addition-only`: the sequence-start declarations plus every tool added in the sequence (deferred),
 *   minus tools removed and not re-added; notices announce additions only.
 * - `in-history`: like `addition-only`, but removed tools stay declared and notices carry removals.
 * - `append` (routes without tool-update blocks): the sequence-start declarations in their order, then each
 *   tool the sequence added, appended in the order its update lists it, none deferred; removed tools stay
 *   declared and a notice carries each removal (adapters send it as text, see `toolNoticeText`).
 *
 * History-capable modes fall back to `options.tools` without notices when the snapshot is missing,
 * when the messages lack a recorded update of the sequence, or when the snapshot disagrees with
 * `options.tools`. Names in `options.deferredTools` are declared deferred on history-capable modes.
 */
export function projectToolUpdates(options: GenerateOptions, mode: ToolUpdateMode): ToolProjection {
  if (!TOOL_UPDATE_MODES.includes(mode)) {
    throw new LlmError('INVALID_TOOL_UPDATE', `unknown tool-update mode ${JSON.stringify(mode)}; valid: ${TOOL_UPDATE_MODES.join(', ')}`)
  }
  const deferredNames = new Set(mode === 'none' || mode === 'append' ? [] : options.deferredTools ?? [])
  const current = (fallback?: ProjectionFallback): ToolProjection => ({
    mode,
    declarations: deferredNames.size
      ? options.tools.map((definition) => ({ definition, deferred: deferredNames.has(definition.name) }))
      : plainDeclarations(options.tools),
    messages: conversationOf(options.messages),
    ...fallback && { fallback },
  })
  if (mode === 'none') return current()
  const history = options.toolHistory
  if (!history) return current('missing-history')

  const matched = matchUpdates(options.messages, history)
  if (typeof matched === 'string') return current(matched)
  const replay = replayHistory(history, options.tools)
  if (!replay) return current('inconsistent-history')

  const keep = (name: string) => mode !== 'addition-only' || replay.present.has(name)
  const defers = mode !== 'append'
  const declarations: ToolDeclaration[] = []
  for (const [name, definition] of replay.declared) {
    if (!keep(name)) continue
    declarations.push({ definition, deferred: defers && (replay.added.has(name) || deferredNames.has(name)) })
  }
  const messages: ProjectedMessage[] = []
  let index = 0
  for (const message of options.messages) {
    const update = matched.get(index++)
    if (isConversation(message)) messages.push(message)
    else if (update) {
      // an appended tool is declared with the others, so only its removal needs saying
      const added = mode === 'append' ? [] : update.added.filter(keep).map((name) => replay.declared.get(name)!)
      const removed = mode === 'addition-only' ? [] : [...update.removed]
      if (added.length || removed.length) {
        const notice: ToolUpdateNotice = { role: 'tool-update', added, removed }
        origins.set(notice, message)
        messages.push(notice)
      }
    }
  }
  return { mode, declarations, messages }
}

// A notice's developer message in the request's history, so a cache marker on it can be named by index.
const origins = new WeakMap<ToolUpdateNotice, ChatMessage>()

/** The message of the request's history that `message` projects: itself, or a notice's developer message. */
export function originOf(message: ProjectedMessage): ChatMessage | undefined {
  return message.role === 'tool-update' ? origins.get(message) : message
}

/**
 * The text a route without tool-update blocks sends for a notice (mode `append`): the tools it names stay
 * declared, so the model is told which ones are gone; calling one fails as an unknown tool.
 */
export function toolNoticeText(notice: ToolUpdateNotice): string {
  const names = notice.removed.map((name) => JSON.stringify(name)).join(', ')
  return notice.removed.length === 1
    ? `[tool registry] The tool ${names} has been removed: it is still declared, but a call to it fails.`
    : `[tool registry] The tools ${names} have been removed: they are still declared, but a call to any of them fails.`
}

const conversations = new WeakMap<ReadonlyList<ChatMessage>, ReadonlyList<ProjectedMessage>>()

/**
 * The messages without developer messages, frozen; carried forward from the previous step's list when
 * this one extends it (see `extendList`), so a step costs what its new messages cost. A `FrozenList`
 * history gives a `FrozenList`, which then grows on a backing array of its own without copies.
 */
function conversationOf(messages: ReadonlyList<ChatMessage>): ReadonlyList<ProjectedMessage> {
  const empty = (): ReadonlyList<ProjectedMessage> => messages instanceof FrozenList ? FrozenList.of([]) : Object.freeze([])
  return derive(messages, conversations, empty, (value, list, from) => {
    const added: ProjectedMessage[] = []
    for (let index = from; index < list.length; index++) {
      const message = list.at(index)!
      if (isConversation(message)) added.push(message)
    }
    // No developer message so far: the projection is the history itself, and no copy is made.
    if (added.length === list.length - from && (from === 0 || value === baseOf(list))) return list as ReadonlyList<ProjectedMessage>
    return added.length ? extendList(value, added) : value
  })
}

function isConversation(message: ChatMessage): message is Exclude<ChatMessage, ToolUpdateMessage> {
  return message.role !== 'developer'
}

/**
 * Pairs developer messages with the sequence's recorded updates, in order. Messages of earlier sequences
 * (header at or before the sequence start, not recorded) are dropped; an unrecorded message of this
 * sequence, or a recorded update missing from the messages, means the prefix does not match the log.
 */
function matchUpdates(messages: ReadonlyList<ChatMessage>, history: ToolHistorySnapshot): Map<number, ToolHistoryUpdate> | ProjectionFallback {
  const matched = new Map<number, ToolHistoryUpdate>()
  let next = 0
  let index = -1
  for (const message of messages) {
    index++
    if (message.role !== 'developer') continue
    const update = history.updates[next]
    if (update && sameUpdate(message, update)) {
      matched.set(index, update)
      next++
    } else if (message.headerSeq > history.sequenceStartSeq) {
      return 'inconsistent-history'
    }
  }
  return next === history.updates.length ? matched : 'incomplete-prefix'
}

function sameUpdate(message: ToolUpdateMessage, update: ToolHistoryUpdate) {
  return message.headerSeq === update.headerSeq
    && sameList(message.added, update.added)
    && sameList(message.removed, update.removed)
}

interface Replay {
  /** Every definition declared in the sequence, in first-declaration order. */
  declared: Map<string, ToolSchema>
  /** Names first declared by an update (not at sequence start). */
  added: Set<string>
  /** Names effective after the last update. */
  present: Set<string>
}

/**
 * Replays the sequence's updates over its start declarations. Returns undefined when the snapshot cannot
 * describe this request: an addition that does not resolve, a name that changes definition inside the
 * sequence, or an end state that differs from the request's effective tools.
 */
function replayHistory(history: ToolHistorySnapshot, tools: readonly ToolSchema[]): Replay | undefined {
  const declared = new Map<string, ToolSchema>()
  for (const definition of history.declarations) {
    if (declared.has(definition.name)) return
    declared.set(definition.name, definition)
  }
  const added = new Set<string>()
  const present = new Set(declared.keys())
  for (const update of history.updates) {
    for (const name of update.removed) present.delete(name)
    for (const name of update.added) {
      const definition = history.resolve(name, update.headerSeq)
      if (!definition || definition.name !== name) return
      const prior = declared.get(name)
      if (prior && !sameValue(prior, definition)) return
      if (!prior) {
        declared.set(name, definition)
        added.add(name)
      }
      present.add(name)
    }
  }
  if (tools.length !== present.size) return
  for (const tool of tools) {
    if (!present.has(tool.name) || !sameValue(declared.get(tool.name), tool)) return
  }
  return { declared, added, present }
}

function sameList(a: readonly string[], b: readonly string[]) {
  return a.length === b.length && a.every((item, index) => item === b[index])
}

/** Structural equality of JSON-like values (key order ignored). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false
  if (Array.isArray(a) !== Array.isArray(b)) return false
  const keysA = Object.keys(a)
  const keysB = Object.keys(b)
  if (keysA.length !== keysB.length) return false
  return keysA.every((key) => Object.hasOwn(b, key) && sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
}
